package dev.skail.benchmarks;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario D's store operations, without the runtime: the auto-configured store (as {@code skail.store.*} says: the
 * embedded store by default; the H2 file store of session 29's figures with
 * {@code -Dskail.store.url=jdbc:h2:skail:<directory>/skail;FILE_LOCK=FS;WRITE_DELAY=0;QUERY_CACHE_SIZE=64}) driven by {@code threads} threads as the worker's would, for a workload no worker serves. Per execution,
 * as the runtime writes them: created claimed (a trigger with a free slot), suspended with its delay step kept back;
 * then, past the delay, claimed again by batches, its history read, its command's step recorded, ended. What is left
 * of D's time once the store's share is known is the runtime's (the function's replay, the hand-offs between the
 * poller and the workers, the trigger's caller). Put to sleep twice: created claimed, suspended by the same thread (a
 * trigger that found a free slot); and created {@code PENDING} by callers while a poller claims them for the threads
 * (a trigger that found every slot taken, the usual case under D's load). Run, after {@code ./bin/benchmark} built the
 * harness: {@code java -Dskail.store.directory=<a new directory> -cp "$(cat benchmarks/target/classpath.txt)"
 * dev.skail.benchmarks.StoreShapes [threads] [executions]} (the store as {@code skail.store.*} says).
 */
public final class StoreShapes {

    private static final String WORKLOAD = "store-shapes";

    private static final String VERSION = "v1";

    private final ExecutionStore store;

    private final int threads;

    private final String owner = UUID.randomUUID().toString();

    private StoreShapes(ExecutionStore store, int threads) {
        this.store = store;
        this.threads = threads;
    }

    public static void main(String[] args) throws Exception {
        int threads = (args.length > 0) ? Integer.parseInt(args[0]) : 32;
        int executions = (args.length > 1) ? Integer.parseInt(args[1]) : 100_000;
        try (ConfigurableApplicationContext context = BenchApplication.start()) {
            StoreShapes shapes = new StoreShapes(context.getBean(ExecutionStore.class), threads);
            shapes.sleepAndWake("warm-", Math.min(10_000, executions), 0);
            shapes.sleepAndWake("d-", executions, 1);
        }
        System.exit(0);
    }

    private void sleepAndWake(String prefix, int count, int round) throws InterruptedException {
        // the store's clock: each round past the last one's delays
        long now = 1_000_000_000_000L + round * 10_000_000L;
        long due = now + 3_600_000;
        long start = System.nanoTime();
        // a trigger that finds a free slot: created claimed, then run by the same thread to its delay
        Threads.forEach(this.threads, count, (i) -> {
            String taskId = prefix + i;
            Lease lease = new Lease(taskId, this.owner, UUID.randomUUID().toString());
            if (!this.store.createClaimed(pending(taskId, i, now), List.of(), lease, now + 30_000).claimed()) {
                throw new IllegalStateException(taskId + " not created claimed");
            }
            suspend(lease, now, due);
        });
        double asleepClaimed = (System.nanoTime() - start) / 1e9;

        // triggers that find every slot taken: created PENDING by the callers, claimed by a poller for the threads
        String queuedPrefix = prefix + "q-";
        start = System.nanoTime();
        Thread callers = new Thread(() -> {
            try {
                Threads.forEach(this.threads, count, (i) -> {
                    String taskId = queuedPrefix + i;
                    if (this.store.create(pending(taskId, i, now)).isPresent()) {
                        throw new IllegalStateException(taskId + " existed");
                    }
                });
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, "store-shapes-callers");
        callers.start();
        claimAndRun(count, now, (claimed) -> {
            // the history: told by the claim when it can tell it, read otherwise (as the worker)
            StoredHistory history = (claimed.history() != null) ? claimed.history()
                    : this.store.history(claimed.lease().taskId()).orElseThrow();
            if (!history.steps().isEmpty()) {
                throw new IllegalStateException(claimed.lease().taskId() + ": " + history.steps());
            }
            suspend(claimed.lease(), now, due);
        });
        callers.join();
        double asleepQueued = (System.nanoTime() - start) / 1e9;

        long later = due + 1;
        start = System.nanoTime();
        claimAndRun(2 * count, later, (claimed) -> {
            Lease lease = claimed.lease();
            StoredHistory history = (claimed.history() != null) ? claimed.history()
                    : this.store.history(lease.taskId()).orElseThrow();
            if (history.steps().size() != 1) {
                throw new IllegalStateException(lease.taskId() + ": " + history.steps());
            }
            // as the runtime writes them: the delay's step completed (kept back until now), the command's step and
            // its attempt, in one write
            StepRow delay = history.steps().get(0);
            StepRow delayCompleted = new StepRow(delay.taskId(), delay.position(), delay.kind(), delay.name(),
                    delay.arguments(), StepRow.COMPLETED, delay.result(), null, delay.idempotencyKey(),
                    delay.functionAttempt(), delay.startedAt(), later, null);
            StepRow command = new StepRow(lease.taskId(), 1, StepRow.COMMAND, "wake", "[7]", StepRow.COMPLETED,
                    "8", null, lease.taskId() + "-1", 1, later, later, null);
            AttemptRow attempt = new AttemptRow(lease.taskId(), 1, "wake", 1, 1, later, later, SkailAttempt.SUCCEEDED,
                    null, SkailAttempt.RECORDED, null);
            this.store.recordSteps(lease, List.of(delayCompleted, command), attempt, later, later + 30_000);
            this.store.completeAndTell(lease, "8", later);
        });
        double woken = (System.nanoTime() - start) / 1e9;
        System.out.printf("%s%d executions, %d threads, the store alone: put to sleep %.0f/s created claimed, "
                + "%.0f/s created pending and claimed; woken and ended %.0f/s%n", prefix, count, this.threads,
                count / asleepClaimed, count / asleepQueued, 2 * count / woken);
    }

    private static ExecutionRow pending(String taskId, int i, long now) {
        return new ExecutionRow(taskId, WORKLOAD, VERSION, "sleeper", "[" + i + "]", ExecutionStatus.PENDING, null,
                null, 1, 0, now, now, now, null);
    }

    /** Suspends the execution at its delay, its delay step kept back until then (as the runtime writes it). */
    private void suspend(Lease lease, long now, long due) {
        StepRow delay = new StepRow(lease.taskId(), 0, StepRow.DELAY, "delay", "[3600000]", StepRow.PENDING,
                Long.toString(due), null, lease.taskId() + "-0", 1, now, now, null);
        this.store.suspend(lease, List.of(delay), new Suspend(ExecutionStatus.WAITING, due, Set.of(), Set.of()), now,
                now);
    }

    /**
     * As the worker: one poller claims as many due executions as there are free slots (the threads, and half as many
     * again claimed ahead, as the worker's prefetch on H2), the threads run what it claimed, until {@code count} have
     * run.
     */
    private void claimAndRun(int count, long now, Consumer<ExecutionStore.Claimed> body) throws InterruptedException {
        Set<String> running = ConcurrentHashMap.newKeySet();
        // the worker's slots on H2 by default: its threads, and half as many again claimed ahead under a backlog
        Semaphore free = new Semaphore(this.threads + this.threads / 2);
        BlockingQueue<Optional<ExecutionStore.Claimed>> queue = new LinkedBlockingQueue<>();
        CountDownLatch done = new CountDownLatch(this.threads);
        for (int t = 0; t < this.threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (Optional<ExecutionStore.Claimed> one = queue.take(); one.isPresent(); one = queue.take()) {
                        body.accept(one.get());
                        running.remove(one.get().lease().taskId());
                        free.release();
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
                catch (RuntimeException ex) {
                    ex.printStackTrace();
                    System.exit(1);
                }
                finally {
                    done.countDown();
                }
            }, "store-shapes-" + t);
            thread.start();
        }
        int claimedInAll = 0;
        while (claimedInAll < count) {
            free.acquire();
            int slots = 1 + free.drainPermits();
            List<ExecutionStore.Claimed> claimed = this.store.claimDueWithHistory(WORKLOAD, VERSION, this.owner,
                    slots, now, now + 30_000, Set.copyOf(running));
            free.release(slots - claimed.size());
            for (ExecutionStore.Claimed one : claimed) {
                running.add(one.lease().taskId());
                queue.add(Optional.of(one));
            }
            claimedInAll += claimed.size();
            if (claimed.isEmpty()) {
                // the callers have not created the next ones yet (the worker would wait for a trigger's nudge)
                LockSupport.parkNanos(200_000);
            }
        }
        for (int t = 0; t < this.threads; t++) {
            queue.add(Optional.empty());
        }
        done.await();
    }
}
