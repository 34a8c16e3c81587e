package dev.skail.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailQuery;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenario D: {@code sleepers} executions of {@code sleeper(i)} ({@code Skail.delay(1h)}, then one command) asleep at
 * once, in a JVM and application of their own.
 * <ul>
 * <li>Put to sleep: {@code callers} threads trigger them all; the time runs from the first trigger until the store
 * counts them all WAITING ({@link SkailClient#count}, read every 250 ms, or less often when a count takes long: the
 * harness counts a ninth of the time at most, so that its own load on the store stays small).</li>
 * <li>Asleep: the threads alive and the heap used after a full GC, against the same figures after the warm-up (the
 * runtime idle, its pools at their working size). The harness's own caller threads are left out of the count, and
 * so are threads that come and go on their own whatever sleeps ({@link #TRANSIENT}: HikariCP's helper that adds
 * connections is started whenever a borrower has to wait and ends after a few seconds idle, even in a full pool; the
 * JVM's attach listener; on PostgreSQL the store's announcer of ends, started by ends and ended 30 seconds after the
 * last). Those seen are listed apart, {@code transient_threads_seen}.</li>
 * <li>Woken: skail's clock (a {@link VirtualClock}, as {@link SkailTestConfiguration} declares it) is moved past the
 * delay, which wakes the worker as a timer falling due would at its next poll; the time runs until the store counts
 * them all COMPLETED (asked once their command has run for all of them, which the command counts in this
 * process).</li>
 * </ul>
 */
public final class SleepScenario {

    private static final String CALLER = "bench-caller-";

    private static final Duration POLL = Duration.ofMillis(250);

    /**
     * Names of threads that hold nothing of a sleeper's and come and go on their own: HikariCP's connection adder and
     * closer (a pool's executors of one thread, started on demand and ended after a few seconds idle), the JVM's
     * attach listener (started when a tool attaches, a profiler for instance) and, skail's own, the PostgreSQL store's
     * announcer of ends (one per store, started by ends and ended 30 seconds after the last).
     */
    private static final Pattern TRANSIENT = Pattern.compile(
            ".*:connection-(adder|closer)|Attach_Listener|skail-ends-announcer");

    private final Settings settings;

    private final SkailClient client;

    private final VirtualClock clock;

    private final Set<String> threadsSeen = new TreeSet<>();

    private final Set<String> transientSeen = new TreeSet<>();

    private int threadsAtMost;

    /** The harness's own load on the store: its counts, how many and how long in all. */
    private long counts;

    private long countNanos;

    private SleepScenario(Settings settings, SkailClient client, VirtualClock clock) {
        this.settings = settings;
        this.client = client;
        this.clock = clock;
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        try (ConfigurableApplicationContext context = BenchApplication.start(SkailTestConfiguration.class)) {
            new SleepScenario(settings, context.getBean(SkailClient.class), context.getBean(VirtualClock.class))
                .run();
        }
        System.exit(0);
    }

    private void run() throws Exception {
        int count = this.settings.sleepers();
        int warm = Math.min(count, Math.max(1000, this.settings.warmup()));
        long start = System.nanoTime();
        sleepAndWake("d-warm-", warm, 0);
        Results.note("warm-up (%d put to sleep and woken) done in %.1f s", warm, (System.nanoTime() - start) / 1e9);

        List<String> idle = threadNames();
        long heapIdle = usedHeapAfterGc();
        this.threadsAtMost = idle.size();

        start = System.nanoTime();
        long triggered = trigger("d-", count);
        long asleep = awaitCount(ExecutionStatus.WAITING, count) - start;
        Results.note("%d asleep in %.1f s", count, asleep / 1e9);
        List<String> sleeping = threadNames();
        long heapAsleep = usedHeapAfterGc();

        long wake = System.nanoTime();
        this.clock.advance(BenchFunctions.SLEEP.multipliedBy(2));
        awaitCommands(warm + count);
        long woken = awaitCount(ExecutionStatus.COMPLETED, warm + count) - wake;
        Results.note("%d woken and completed in %.1f s", count, woken / 1e9);

        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("sleepers", count);
        figures.put("callers", this.settings.callers());
        figures.put("threads_idle", idle.size());
        figures.put("threads_asleep", sleeping.size());
        figures.put("threads_at_most", this.threadsAtMost);
        figures.put("extra_threads", sleeping.size() - idle.size());
        List<String> added = new ArrayList<>(sleeping);
        added.removeAll(idle);
        figures.put("new_threads", added.isEmpty() ? "none" : String.join(",", added));
        Set<String> ever = new TreeSet<>(this.threadsSeen);
        idle.forEach(ever::remove);
        figures.put("threads_seen_meanwhile", ever.isEmpty() ? "none" : String.join(",", ever));
        figures.put("transient_threads_seen", this.transientSeen.isEmpty() ? "none"
                : String.join(",", this.transientSeen));
        figures.put("heap_idle_mib", heapIdle / 1048576.0);
        figures.put("heap_asleep_mib", heapAsleep / 1048576.0);
        figures.put("heap_bytes_per_sleeper", (double) (heapAsleep - heapIdle) / count);
        figures.put("trigger_per_s", count / (triggered / 1e9));
        figures.put("asleep_s", asleep / 1e9);
        figures.put("asleep_per_s", count / (asleep / 1e9));
        figures.put("woken_s", woken / 1e9);
        figures.put("woken_per_s", count / (woken / 1e9));
        figures.put("count_mean_ms", this.countNanos / 1e6 / Math.max(1, this.counts));
        Results.print("D", figures);
    }

    private void sleepAndWake(String prefix, int count, long completedBefore) throws Exception {
        trigger(prefix, count);
        awaitCount(ExecutionStatus.WAITING, count);
        this.clock.advance(BenchFunctions.SLEEP.multipliedBy(2));
        awaitCount(ExecutionStatus.COMPLETED, completedBefore + count);
    }

    /**
     * Waits until the sleepers' command has run {@code expected} times in all, reading a counter in this process
     * every 10 ms: the store is asked whether they have ended only once they have nearly all ended.
     */
    private void awaitCommands(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        while (BenchFunctions.WOKEN.sum() < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
    }

    /** Triggers {@code count} sleepers from the caller threads; returns how long the triggers took, in nanoseconds. */
    private long trigger(String prefix, int count) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger threads = new AtomicInteger();
        ExecutorService callers = Executors.newFixedThreadPool(this.settings.callers(),
                (task) -> new Thread(task, CALLER + threads.incrementAndGet()));
        long start = System.nanoTime();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < this.settings.callers(); c++) {
                futures.add(callers.submit(() -> {
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        this.client.trigger("sleeper", prefix + i, i);
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
            return System.nanoTime() - start;
        }
        finally {
            callers.shutdownNow();
        }
    }

    /** Waits until the store counts {@code expected} sleepers in {@code status}; returns {@link System#nanoTime()}. */
    private long awaitCount(ExecutionStatus status, long expected) throws InterruptedException {
        SkailQuery sleepers = SkailQuery.all().withFunction("sleeper");
        long deadline = System.nanoTime() + Duration.ofMinutes(30).toNanos();
        while (System.nanoTime() < deadline) {
            long before = System.nanoTime();
            Map<ExecutionStatus, Long> counts = this.client.count(sleepers);
            long now = System.nanoTime();
            this.counts++;
            this.countNanos += now - before;
            List<String> threads = threadNames();
            this.threadsAtMost = Math.max(this.threadsAtMost, threads.size());
            this.threadsSeen.addAll(threads);
            if (counts.getOrDefault(ExecutionStatus.FAILED, 0L) > 0) {
                throw new IllegalStateException("sleepers failed: " + counts);
            }
            if (counts.getOrDefault(status, 0L) >= expected) {
                return now;
            }
            // a count of many rows is work for the store too: the harness keeps to a ninth of the time at most
            Thread.sleep(Math.max(POLL.toMillis(), 8 * (now - before) / 1_000_000));
        }
        throw new IllegalStateException("the sleepers did not reach " + status + " in 30 minutes: "
                + this.client.count(sleepers));
    }

    /** The live threads but the harness's callers, by name (pool threads numbered alike are told apart by id). */
    /** The threads alive but the harness's callers and the {@link #TRANSIENT} ones (noted as seen). */
    private List<String> threadNames() {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName().replace(' ', '_').replace(',', ';');
            if (TRANSIENT.matcher(name).matches()) {
                this.transientSeen.add(name);
            }
            else if (!name.startsWith(CALLER)) {
                names.add(name);
            }
        }
        names.sort(null);
        return names;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
