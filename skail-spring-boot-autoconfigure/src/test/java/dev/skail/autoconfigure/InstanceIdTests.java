package dev.skail.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The host name in the default {@code skail.instance-id}: read without a name lookup where the machine tells it
 * (a lookup of a name that does not resolve holds the application's start for seconds).
 */
class InstanceIdTests {

    @TempDir
    Path directory;

    @Test
    void aContainersHostNameIsTakenFromTheEnvironment() throws Exception {
        Path kernel = Files.writeString(this.directory.resolve("hostname"), "node-3\n");

        assertThat(SkailAutoConfiguration.hostName(Map.of("HOSTNAME", "pedidos-7f9c6d-x2k4q")::get, kernel))
            .isEqualTo("pedidos-7f9c6d-x2k4q");
    }

    @Test
    void withoutItTheKernelsNameIsRead() throws Exception {
        Path kernel = Files.writeString(this.directory.resolve("hostname"), "node-3\n");

        assertThat(SkailAutoConfiguration.hostName(Map.of("HOSTNAME", " ")::get, kernel)).isEqualTo("node-3");
    }

    @Test
    void onWindowsTheComputerNameIsTaken() {
        Path missing = this.directory.resolve("no-such-file");

        assertThat(SkailAutoConfiguration.hostName(Map.of("COMPUTERNAME", "CAIXA-01")::get, missing))
            .isEqualTo("CAIXA-01");
    }

    @Test
    void withNoneOfThemTheNameIsLookedUp() {
        Path missing = this.directory.resolve("no-such-file");
        String lookedUp;
        try {
            lookedUp = java.net.InetAddress.getLocalHost().getHostName();
        }
        catch (java.net.UnknownHostException ex) {
            lookedUp = "localhost";
        }

        assertThat(SkailAutoConfiguration.hostName(Map.<String, String>of()::get, missing)).isEqualTo(lookedUp);
    }
}
