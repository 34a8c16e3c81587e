package dev.skail.availability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL of its own for the outage tests, which stop and start it: never the shared one of the other tests.
 * {@code bin/test-postgres} runs it on port {@value #PORT} with its data in {@value #DATA}.
 */
final class OutagePostgres {

    static final String PORT = "54331";

    static final String DATA = "/tmp/skail-outage-pg";

    private OutagePostgres() {
    }

    /** Starts it (or finds it running); its JDBC URL. */
    static String start() {
        String out = script();
        String[] lines = out.strip().split("\n");
        return lines[lines.length - 1].strip();
    }

    static void stop() {
        script("stop");
    }

    /** A schema of its own in the database at {@code url}; the URL of it. */
    static String newSchema(String url) {
        String schema = "outage_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = DriverManager.getConnection(url);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
        return url + "&currentSchema=" + schema;
    }

    private static String script(String... arguments) {
        Path script = root().resolve("bin/test-postgres");
        String[] command = new String[arguments.length + 1];
        command[0] = script.toString();
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("SKAIL_TEST_PGPORT", PORT);
        builder.environment().put("SKAIL_TEST_PGDATA", DATA);
        try {
            Process process = builder.start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException("bin/test-postgres " + String.join(" ", arguments) + " failed: " + out);
            }
            return out;
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("bin/test-postgres"))) {
                return dir;
            }
        }
        throw new IllegalStateException("bin/test-postgres not found above " + Path.of("").toAbsolutePath());
    }
}
