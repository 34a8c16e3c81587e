package dev.skail.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The host name in the default {@code skail.instance-id}: read without a name lookup where the machine tells it
 * (a lookup of a name that does not resolve holds the application's start for seconds).
 */
class InstanceIdTests {

    /** A lookup that must not be made. */
    private static final Supplier<String> NO_LOOKUP = () -> {
        throw new AssertionError("the host name was looked up");
    };

    @TempDir
    Path directory;

    @Test
    void aContainersHostNameIsTakenFromTheEnvironment() throws Exception {
        Path kernel = Files.writeString(this.directory.resolve("hostname"), "node-3\n");

        assertThat(SkailAutoConfiguration.hostName(Map.of("HOSTNAME", "pedidos-7f9c6d-x2k4q")::get, kernel,
                NO_LOOKUP))
            .isEqualTo("pedidos-7f9c6d-x2k4q");
    }

    @Test
    void withoutItTheKernelsNameIsRead() throws Exception {
        Path kernel = Files.writeString(this.directory.resolve("hostname"), "node-3\n");

        assertThat(SkailAutoConfiguration.hostName(Map.of("HOSTNAME", " ")::get, kernel, NO_LOOKUP))
            .isEqualTo("node-3");
    }

    @Test
    void onWindowsTheComputerNameIsTaken() {
        Path missing = this.directory.resolve("no-such-file");

        assertThat(SkailAutoConfiguration.hostName(Map.of("COMPUTERNAME", "CAIXA-01")::get, missing, NO_LOOKUP))
            .isEqualTo("CAIXA-01");
    }

    @Test
    void withNoneOfThemTheNameIsLookedUp() {
        Path missing = this.directory.resolve("no-such-file");

        assertThat(SkailAutoConfiguration.hostName(Map.<String, String>of()::get, missing, () -> "caixa.local"))
            .isEqualTo("caixa.local");
    }
}
