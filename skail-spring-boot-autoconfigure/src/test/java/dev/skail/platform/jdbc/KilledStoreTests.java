package dev.skail.platform.jdbc;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.skail.platform.KilledWriter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded store killed with {@code kill -9} while several threads write to it, again and again: each time H2's
 * file opens consistent (every row reached through every index, rewritten whole), and every step acknowledged before
 * the kill is there.
 */
class KilledStoreTests {

    private static final String[] TABLES = { "skail_execution", "skail_step", "skail_tag", "skail_attempt" };

    @TempDir
    Path directory;

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
            try {
                KilledWriter.writeUntilKilled(H2StoreWriter.class, List.of(url, String.valueOf(round * 1_000_000), "4",
                        String.valueOf(compacting)), this.directory.resolve("writer-" + round + ".err"), acknowledged,
                        killAfter[round]);
            }
            catch (AssertionError ex) {
                throw new AssertionError("round " + round + ": " + ex.getMessage(), ex);
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
