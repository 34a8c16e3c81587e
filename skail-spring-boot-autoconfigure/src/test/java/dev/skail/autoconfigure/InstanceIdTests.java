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

    @Test
    void aLongHostNameIsCutTo64CharactersBeforeTheRandomSuffix() {
        // a fully qualified name of 253 characters, the most DNS allows
        String host = ("pedidos-" + "a".repeat(55) + ".").repeat(4).substring(0, 253);

        String id = SkailAutoConfiguration.instanceId(host);

        assertThat(id).hasSize(64 + 1 + 8).startsWith(host.substring(0, 64) + "-");
        assertThat(id.substring(65)).matches("[0-9a-f]{8}");
        assertThat(SkailAutoConfiguration.instanceId(host)).as("another start's id").isNotEqualTo(id);
        assertThat(SkailAutoConfiguration.instanceId("caixa-01")).matches("caixa-01-[0-9a-f]{8}");
    }
}
