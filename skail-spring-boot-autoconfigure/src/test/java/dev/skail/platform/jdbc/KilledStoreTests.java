package dev.skail.platform.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The embedded store killed with {@code kill -9} while several threads write to it, again and again: each time H2's
 * file opens consistent (every row reached through every index, rewritten whole), and every step acknowledged before
 * the kill is there.
 */
class KilledStoreTests {

    private static final String[] TABLES = { "skail_execution", "skail_step", "skail_tag", "skail_attempt" };

    @TempDir
    Path directory;

    /** The end of the writer's error output, for a failure's message. */
    private static String tail(Path errors) {
        try {
            String text = java.nio.file.Files.readString(errors);
            return text.substring(Math.max(0, text.length() - 2_000));
        }
        catch (IOException ex) {
            return "(unreadable: " + ex.getMessage() + ")";
        }
    }

    @Test
    void aStoreKilledWhileSeveralThreadsWriteOpensConsistentWithEveryAcknowledgedStep() throws Exception {
        killWhileWriting(new int[] { 300, 900, 150 }, false);
    }

    /**
     * The same while the file is being compacted all the time (the store compacts in small rounds, four a second: here a thread of the
     * writer has H2 rewrite its emptiest chunks whenever the file is less than 90 % live, 50 times a second, so that
     * kills land in the middle of it). More rounds
     * with {@code -Dskail.test.compaction-kills=N}.
     */
    @Test
    void aStoreKilledWhileItsFileIsCompactedOpensConsistentWithEveryAcknowledgedStep() throws Exception {
        int rounds = Integer.getInteger("skail.test.compaction-kills", 3);
        int[] killAfter = new int[rounds];
        for (int round = 0; round < rounds; round++) {
            killAfter[round] = new int[] { 600, 200, 1_200, 400 }[round % 4];
        }
        killWhileWriting(killAfter, true);
    }

    private void killWhileWriting(int[] killAfter, boolean compacting) throws Exception {
        String url = H2Urls.PREALLOCATED_FILE + this.directory.resolve("skail") + ";FILE_LOCK=FS";
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        for (int round = 0; round < killAfter.length; round++) {
            int before = acknowledged.size();
            Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), H2StoreWriter.class.getName(), url,
                    String.valueOf(round * 1_000_000), "4", String.valueOf(compacting))
                .redirectError(this.directory.resolve("writer-" + round + ".err").toFile())
                .start();
            Thread reader = new Thread(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream()))) {
                    String line;
                    while ((line = out.readLine()) != null) {
                        if (line.startsWith("pedido-")) {
                            acknowledged.add(line.trim());
                        }
                    }
                }
                catch (IOException ex) {
                    // killed
                }
            });
            reader.start();
            int target = before + killAfter[round];
            Path errors = this.directory.resolve("writer-" + round + ".err");
            try {
                await().atMost(Duration.ofSeconds(90))
                    .failFast("the writer ended before it was killed", () -> !writer.isAlive())
                    .until(() -> acknowledged.size() >= target);
            }
            catch (org.awaitility.core.ConditionTimeoutException | org.awaitility.core.TerminalFailureException ex) {
                throw new AssertionError("round " + round + ": " + acknowledged.size() + " steps acknowledged, "
                        + target + " awaited; the writer's errors: " + tail(errors), ex);
            }
            finally {
                writer.destroyForcibly();
                writer.waitFor(30, TimeUnit.SECONDS);
                reader.join(10_000);
            }

            // H2's file as H2 opens it: each row rewritten through every index of its table
            try (Connection connection = DriverManager.getConnection(H2Urls.durable(url))) {
                connection.setAutoCommit(false);
                try (Statement statement = connection.createStatement()) {
                    for (String table : TABLES) {
                        statement.executeUpdate("UPDATE " + table + " SET task_id = task_id");
                    }
                    statement.executeUpdate("UPDATE skail_execution SET updated_at = updated_at, status = status");
                }
                connection.rollback();
            }
            try (JdbcExecutionStore store = H2TestStore.openUrl(url, 10)) {
                for (String taskId : acknowledged) {
                    assertThat(store.history(taskId)).as(taskId).hasValueSatisfying(
                            (history) -> assertThat(history.steps()).hasSize(1));
                }
            }
        }
    }
}
