package dev.skail.platform.local;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.skail.platform.KilledWriter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store skail keeps itself, killed with {@code kill -9} while several threads write to it, again and again on one
 * file: each time it opens with every step acknowledged before the kill (the maps' last checkpoint, then the log's
 * records after it), and its executions and indexes agreeing (a chunk and a record hold whole operations only). More rounds with
 * {@code -Dskail.test.local-kills=N}, longer ones with {@code -Dskail.test.local-kill-after=N} (the steps acknowledged
 * before each kill: 40,000 make the log start again while the writer runs).
 */
class KilledLocalStoreTests {

    @TempDir
    Path directory;

    @Test
    void aStoreKilledWhileSeveralThreadsWriteOpensConsistentWithEveryAcknowledgedStep() throws Exception {
        Path file = this.directory.resolve(LocalStore.FILE_NAME);
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        int rounds = Integer.getInteger("skail.test.local-kills", 4);
        long replayed = 0;
        for (int round = 0; round < rounds; round++) {
            // -Dskail.test.local-kill-after=N: rounds long enough for the log to restart while the writer runs
            int more = Integer.getInteger("skail.test.local-kill-after", new int[] { 300, 900, 150, 600 }[round % 4]);
            try {
                KilledWriter.writeUntilKilled(LocalStoreWriter.class, List.of(file.toString(),
                        String.valueOf(round * 1_000_000), "4"), this.directory.resolve("writer-" + round + ".err"),
                        acknowledged, more);
            }
            catch (AssertionError ex) {
                throw new AssertionError("round " + round + ": " + ex.getMessage(), ex);
            }

            LocalStore store = LocalStore.open(file);
            try {
                replayed += store.replayed();
                store.initialize();
                assertThat(store.inconsistencies()).as("round " + round).isEmpty();
                for (String taskId : acknowledged) {
                    assertThat(store.history(taskId)).as(taskId).hasValueSatisfying(
                            (history) -> assertThat(history.steps()).isNotEmpty());
                }
            }
            finally {
                store.close();
            }
        }
        // the writes after the maps' last checkpoint came back from the log (a round of the default sizes runs for less than a second)
        assertThat(replayed).isPositive();
    }
}
