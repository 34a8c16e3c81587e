package dev.skail.platform.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.skail.platform.OrderWriter;
import dev.skail.platform.StoreUnavailableException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store skail keeps itself, losing power while several threads write to it, again and again, each time on the
 * files the last loss left ({@link PowerLossDisk}: a write is on the device only once its file is forced; of those
 * written since, the loss keeps none, all, a prefix or each at even odds, in sectors): it opens with every step
 * acknowledged before the loss, and its executions and indexes agreeing. The power goes at a force chosen at random:
 * while the store opens and applies its log (its first forces: the records applied again, then the first checkpoint,
 * which the checkpoints' thread runs at once, and the first writes), while threads write, while a checkpoint forces the
 * maps, and after the log started again. Each run draws new losses and prints its seed; {@code -Dskail.test.power-loss-seed=S} draws the
 * same forces and the same choices of sectors again (what the threads wrote by then depends on their timing), and
 * {@code -Dskail.test.power-losses=N} runs more rounds (at least 4).
 */
class PowerLossTests {

    @TempDir
    Path directory;

    @Test
    void aStoreThatLosesPowerWhileSeveralThreadsWriteOpensWithEveryAcknowledgedStep() throws Exception {
        long seed = Long.getLong("skail.test.power-loss-seed", System.nanoTime());
        Random random = new Random(seed);
        int rounds = Math.max(4, Integer.getInteger("skail.test.power-losses", 12));
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        List<String> losses = new ArrayList<>();
        long replayed = 0;
        Path files = Files.createDirectories(this.directory.resolve("round-0"));
        for (int round = 0; round < rounds; round++) {
            String what = "seed " + seed + ", round " + round;
            PowerLossDisk disk = PowerLossDisk.attach(files, random);
            Path next = this.directory.resolve("round-" + (round + 1));
            // while the store opens (its first forces, then its first checkpoint's), while it writes, while a
            // checkpoint forces the maps (once a second), or after its log started again (8 MiB of records, some
            // 2,500 orders)
            String forced = (round % 4 == 2) ? LocalStore.FILE_NAME : null;
            long force = switch (round % 4) {
                case 0 -> 1 + random.nextInt(6);
                case 1 -> 20 + random.nextInt(1_500);
                case 2 -> 2 + random.nextInt(3);
                default -> 4_000 + random.nextInt(4_000);
            };
            disk.cutAtForce(forced, force, next);
            Path file = files.resolve(LocalStore.FILE_NAME);
            List<Thread> writers = new ArrayList<>();
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            LocalStore store = null;
            try {
                try {
                    store = LocalStore.open(file, PowerLossFilePath.mapsFileName(file), disk::open);
                    replayed += store.replayed();
                    store.initialize();
                }
                catch (RuntimeException ex) {
                    // the power went while the store opened
                    assertThat(disk.isOff()).as(what + ": the store failed to open with the power on: " + ex).isTrue();
                }
                if (store != null) {
                    try {
                        assertThat(store.inconsistencies()).as(what).isEmpty();
                        for (String taskId : acknowledged) {
                            assertThat(store.history(taskId)).as(what + ": " + taskId)
                                .hasValueSatisfying((history) -> assertThat(history.steps())
                                    .as(what + ": the step of " + taskId)
                                    .isNotEmpty());
                        }
                    }
                    catch (StoreUnavailableException ex) {
                        // the power went during the store's first checkpoint, which runs once it opened: its maps
                        // closed, as a process would have ended
                        assertThat(disk.isOff()).as(what + ": the store closed with the power on: " + ex).isTrue();
                        store.close();
                        store = null;
                    }
                }
                if (store != null) {
                    for (int t = 0; t < 4; t++) {
                        LocalStore writing = store;
                        int first = (round + 1) * 1_000_000 + t * 100_000;
                        int thread = t;
                        Thread writer = new Thread(() -> {
                            try {
                                OrderWriter.write(writing, first, thread, true, acknowledged::add);
                            }
                            catch (RuntimeException ex) {
                                if (!disk.isOff()) {
                                    failures.add(ex);
                                }
                            }
                        }, "writer-" + t);
                        writers.add(writer);
                        writer.start();
                    }
                }
                await().atMost(Duration.ofSeconds(120))
                    .failFast(what + ": a writer failed with the power on", () -> !failures.isEmpty())
                    .failFast(what + ": the writers stopped with the power on",
                            () -> !writers.isEmpty() && writers.stream().noneMatch(Thread::isAlive) && !disk.isOff())
                    .until(disk::isOff);
            }
            finally {
                if (!disk.isOff()) {
                    // a failed round: the power goes now, so that the writers stop
                    disk.cutNow(this.directory.resolve("failed-" + round));
                }
                for (Thread writer : writers) {
                    writer.join(30_000);
                }
                if (store != null) {
                    store.close();
                }
                disk.detach();
            }
            assertThat(writers).as(what + ": writers still running after the loss").noneMatch(Thread::isAlive);
            assertThat(failures).as(what + ": writers that failed with the power on").isEmpty();
            losses.add("round " + round + ", force " + force + ((forced != null) ? " of the maps" : "") + ": "
                    + disk.cut());
            files = next;
        }

        Path file = files.resolve(LocalStore.FILE_NAME);
        LocalStore store = LocalStore.open(file);
        try {
            store.initialize();
            assertThat(store.inconsistencies()).as("seed " + seed + ", at the end").isEmpty();
            for (String taskId : acknowledged) {
                assertThat(store.history(taskId)).as("seed " + seed + ", at the end: " + taskId).hasValueSatisfying(
                        (history) -> assertThat(history.steps()).as("the step of " + taskId).isNotEmpty());
            }
        }
        finally {
            store.close();
        }
        System.out.println("PowerLossTests: seed " + seed + ", " + acknowledged.size() + " steps acknowledged, "
                + replayed + " records applied again from the log; " + String.join("; ", losses));
        assertThat(acknowledged).as("seed " + seed).hasSizeGreaterThan(1_000);
        assertThat(replayed).as("seed " + seed + ": records applied again from the log").isPositive();
    }
}
