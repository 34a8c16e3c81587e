package dev.skail.platform.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
            int before = acknowledged.size();
            Path errors = this.directory.resolve("writer-" + round + ".err");
            Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), LocalStoreWriter.class.getName(), file.toString(),
                    String.valueOf(round * 1_000_000), "4")
                .redirectError(errors.toFile())
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
            // -Dskail.test.local-kill-after=N: rounds long enough for the log to restart while the writer runs
            int target = before + Integer.getInteger("skail.test.local-kill-after",
                    new int[] { 300, 900, 150, 600 }[round % 4]);
            try {
                await().atMost(Duration.ofSeconds(90))
                    .failFast("the writer ended before it was killed", () -> !writer.isAlive())
                    .until(() -> acknowledged.size() >= target);
            }
            catch (org.awaitility.core.ConditionTimeoutException | org.awaitility.core.TerminalFailureException ex) {
                throw new AssertionError("round " + round + ": " + acknowledged.size() + " steps acknowledged, "
                        + target + " awaited; the writer's errors: " + Files.readString(errors), ex);
            }
            finally {
                writer.destroyForcibly();
                writer.waitFor(30, TimeUnit.SECONDS);
                reader.join(10_000);
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
        // the writes after the maps' last checkpoint came back from the log (each round runs for less than a second)
        assertThat(replayed).isPositive();
    }
}
