package dev.skail.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailClient;
import dev.skail.SkailHandle;
import dev.skail.autoconfigure.SkailProperties;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.runtime.RuntimeSettings;
import dev.skail.runtime.SkailRuntime;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * Scenarios A, B, C, E and G in one JVM and one application on one store, after a warm-up. Every execution is waited
 * for the way an application waits for it: its {@link SkailHandle} ({@code result}), which the runtime signals when the
 * execution has ended and its end is recorded.
 * <ul>
 * <li>A: {@code steps(10, i)} run {@code sequential} times one after another: milliseconds per execution.</li>
 * <li>B: {@code executions} of {@code steps(10, i)}, {@code callers} threads each running one to its end at a time
 * (a closed loop): executions and steps per second, milliseconds per execution.</li>
 * <li>C: one {@code steps(n, 1)} per {@code n} of {@code growth}: microseconds per step.</li>
 * <li>E: {@code probe(i)} triggered {@code triggers} times one after another on an otherwise idle runtime: from just
 * before {@code trigger} to the first statement of its command's body.</li>
 * <li>G: one {@code conferir(100, pedido)}, each command taking and returning an order of 20 items: microseconds per
 * step, beside C's.</li>
 * </ul>
 * Started by the harness ({@link Benchmark}); the store comes from {@code skail.store.*} system properties.
 */
public final class CoreScenarios {

    static final int STEPS = 10;

    /** The note that describes the store, which the harness puts above the store's table. */
    static final String STORE_NOTE = "# store: ";

    private static final Duration TIMEOUT = Duration.ofMinutes(10);

    /** G: the steps of the function of orders, and the items of its order. */
    private static final int ORDER_STEPS = 100;

    private static final int ORDER_ITEMS = 20;

    private final Settings settings;

    private final SkailClient client;

    private final StoreCounters counters;

    private final ExecutionStore store;

    private final RuntimeSettings runtime;

    private CoreScenarios(Settings settings, SkailClient client, StoreCounters counters, ExecutionStore store,
            RuntimeSettings runtime) {
        this.settings = settings;
        this.client = client;
        this.counters = counters;
        this.store = store;
        this.runtime = runtime;
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        try (ConfigurableApplicationContext context = BenchApplication.start();
                StoreCounters counters = StoreCounters.of(context)) {
            Map<String, Object> store = new LinkedHashMap<>();
            store.put("durable", counters.durable());
            // the worker's concurrency as the product resolves it
            store.put("concurrency", String.valueOf(context.getBean(SkailProperties.class)
                .getWorker()
                .concurrency()));
            System.out.println(STORE_NOTE + counters.describe());
            Results.print("store", store);
            Map<String, Long> atStart = counters.read();
            new CoreScenarios(settings, context.getBean(SkailClient.class), counters,
                    context.getBean(ExecutionStore.class), context.getBean(SkailRuntime.class).settings()).run();
            Results.print("whole", StoreCounters.delta(atStart, counters.read()));
        }
        System.exit(0);
    }

    private void run() throws Exception {
        long start = System.nanoTime();
        warmUp();
        Results.note("warm-up done in %.1f s", (System.nanoTime() - start) / 1e9);
        if (this.settings.runs("A")) {
            sequential();
        }
        if (this.settings.runs("B")) {
            burst();
        }
        if (this.settings.runs("C")) {
            for (int n : this.settings.growth()) {
                growth(n, n == this.settings.growth()[this.settings.growth().length - 1]);
            }
            runtimeShare(this.settings.growth()[this.settings.growth().length - 1]);
        }
        if (this.settings.runs("E")) {
            firstCommand();
        }
        if (this.settings.runs("G")) {
            orders();
        }
    }

    /** JIT, pool and caches: executions in sequence, a burst with every caller, a function of 100 steps, probes. */
    private void warmUp() throws Exception {
        int runs = this.settings.warmup();
        for (int i = 0; i < runs; i++) {
            runSteps("warm-" + i, STEPS, i);
        }
        closedLoop("warm-burst-", Math.min(10 * this.settings.callers(), Math.max(runs, this.settings.callers())));
        runSteps("warm-growth", 100, 1);
        for (int i = 0; i < runs; i++) {
            int value = this.client.<Integer>trigger("probe", "warm-probe-" + i, i).result(TIMEOUT);
            check(value, i);
        }
    }

    /** A. */
    private void sequential() {
        Map<String, Long> before = this.counters.read();
        long[] nanos = new long[this.settings.sequential()];
        for (int i = 0; i < nanos.length; i++) {
            long start = System.nanoTime();
            runSteps("a-" + i, STEPS, i);
            nanos[i] = System.nanoTime() - start;
        }
        Map<String, Long> delta = StoreCounters.delta(before, this.counters.read());
        Stats stats = Stats.of(nanos);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("runs", nanos.length);
        figures.put("steps", STEPS);
        figures.put("median_ms", stats.ms(50));
        figures.put("p99_ms", stats.ms(99));
        figures.put("mean_ms", stats.meanMs());
        figures.put("max_ms", stats.maxMs());
        figures.putAll(StoreCounters.perStep(delta, (long) nanos.length * STEPS));
        Results.print("A", figures);
    }

    /** B. */
    private void burst() throws Exception {
        // on PostgreSQL every transaction, reads included, is counted too: the round trips an execution costs
        boolean commits = this.counters.countsAllCommits();
        long commitsBefore = commits ? this.counters.settledCommits() : 0;
        Map<String, Long> before = this.counters.read();
        int count = this.settings.executions();
        long start = System.nanoTime();
        long[] nanos = closedLoop("b-", count);
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Long> delta = StoreCounters.delta(before, this.counters.read());
        Stats stats = Stats.of(nanos);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("executions", count);
        figures.put("callers", this.settings.callers());
        figures.put("wall_s", seconds);
        figures.put("executions_per_s", count / seconds);
        figures.put("steps_per_s", (double) count * STEPS / seconds);
        figures.put("median_ms", stats.ms(50));
        figures.put("p99_ms", stats.ms(99));
        figures.putAll(StoreCounters.perStep(delta, (long) count * STEPS));
        if (delta.containsKey("syncs")) {
            figures.put("commits_per_sync", (double) delta.get("commits") / Math.max(1, delta.get("syncs")));
        }
        if (commits) {
            figures.put("all_commits_per_execution", (double) (this.counters.settledCommits() - commitsBefore) / count);
        }
        Results.print("B", figures);
    }

    /** C, for one number of steps; on PostgreSQL the largest also reads the settled commit count. */
    private void growth(int steps, boolean largest) {
        boolean commits = largest && this.counters.countsAllCommits();
        long commitsBefore = commits ? this.counters.settledCommits() : 0;
        String id = "c-" + steps;
        Map<String, Long> before = this.counters.read();
        long start = System.nanoTime();
        runSteps(id, steps, 1);
        long nanos = System.nanoTime() - start;
        Map<String, Long> delta = StoreCounters.delta(before, this.counters.read());
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("total_ms", nanos / 1e6);
        figures.put("us_per_step", nanos / 1e3 / steps);
        figures.putAll(StoreCounters.perStep(delta, steps));
        // every step is recorded: the history holds them all
        figures.put("recorded_steps", this.client.history(id).steps().size());
        if (commits) {
            figures.put("all_commits_per_step", (double) (this.counters.settledCommits() - commitsBefore) / steps);
        }
        Results.print("C" + steps, figures);
    }

    /**
     * What the runtime adds to a step, measured warm and bracketed: C's largest function written straight to the store
     * ({@link #storeAlone}), the function run again, and the store alone once more. The two store figures bracket the
     * function's in time (the JVM is still compiling after C: a figure taken only after the function's would credit
     * the store with the warm-up the function paid for, which made the runtime look four times as costly as it is).
     */
    private void runtimeShare(int steps) {
        Map<String, Object> before = storeAlone(steps, "c-store-" + steps);
        String id = "c-again-" + steps;
        long start = System.nanoTime();
        runSteps(id, steps, 1);
        double again = (System.nanoTime() - start) / 1e3 / steps;
        Map<String, Object> after = storeAlone(steps, "c-store-again-" + steps);
        Map<String, Object> figures = new LinkedHashMap<>(after);
        double alone = ((Double) before.get("us_per_step") + (Double) after.get("us_per_step")) / 2;
        figures.put("us_per_step", alone);
        figures.put("us_per_step_before", before.get("us_per_step"));
        figures.put("us_per_step_after", after.get("us_per_step"));
        figures.put("function_again_us_per_step", again);
        Results.print("Cstore", figures);
    }

    /**
     * C's largest function again, its rows written straight to the store (the bean the runtime writes through): the
     * execution created claimed, each step with its attempt as the runtime records a command that returned, then its
     * end. No function runs: no interception, no JSON, no replay, no hand-off between threads. What C's step costs
     * beyond this is the runtime's.
     */
    private Map<String, Object> storeAlone(int steps, String id) {
        long leaseMillis = this.runtime.leaseDuration().toMillis();
        Lease lease = new Lease(id, this.runtime.instanceId(), java.util.UUID.randomUUID().toString());
        Map<String, Long> before = this.counters.read();
        long start = System.nanoTime();
        long now = System.currentTimeMillis();
        ExecutionRow execution = new ExecutionRow(id, this.runtime.workload(), this.runtime.version(), "steps",
                "[" + steps + ",1]", ExecutionStatus.PENDING, null, null, 1, 0, now, now, now, null);
        if (!this.store.createClaimed(execution, List.of(), lease, now + leaseMillis).claimed()) {
            throw new IllegalStateException(id + " exists already");
        }
        for (int i = 0; i < steps; i++) {
            long at = System.currentTimeMillis();
            // the rows the runtime writes for inc(i + 1): its arguments, its result, its idempotency key
            String key = java.util.UUID.nameUUIDFromBytes(("skail:" + id + ":" + i)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
            StepRow step = new StepRow(id, i, StepRow.COMMAND, "inc", "[" + (i + 1) + "]", StepRow.COMPLETED,
                    String.valueOf(i + 2), null, key, 1, at, at, null);
            AttemptRow attempt = new AttemptRow(id, i, "inc", 1, 1, at, at, SkailAttempt.SUCCEEDED, null,
                    SkailAttempt.RECORDED, null);
            this.store.recordStep(lease, step, attempt, at, at + leaseMillis);
        }
        this.store.complete(lease, String.valueOf(steps + 1), System.currentTimeMillis());
        long nanos = System.nanoTime() - start;
        Map<String, Long> delta = StoreCounters.delta(before, this.counters.read());
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("steps", steps);
        figures.put("total_ms", nanos / 1e6);
        figures.put("us_per_step", nanos / 1e3 / steps);
        figures.putAll(StoreCounters.perStep(delta, steps));
        figures.put("recorded_steps", this.client.history(id).steps().size());
        return figures;
    }

    /**
     * G: one function of {@link #ORDER_STEPS} commands, each taking and returning an order of {@link #ORDER_ITEMS}
     * items (BigDecimal amounts with their scale, an offset date-time): per step, against C's {@code int}s; the result
     * must come back equal, scale included.
     */
    private void orders() {
        BenchFunctions.Pedido pedido = BenchFunctions.pedido(ORDER_ITEMS);
        BenchFunctions.Pedido expected = new BenchFunctions().conferirItens(pedido);
        expected = new BenchFunctions.Pedido(expected.pedidoId(), expected.criadoEm(), expected.total(),
                expected.itens(), ORDER_STEPS);
        for (int i = 0; i < 5; i++) {
            runOrders("warm-g-" + i, pedido, ORDER_STEPS, expected);
        }
        Map<String, Long> before = this.counters.read();
        long start = System.nanoTime();
        runOrders("g", pedido, ORDER_STEPS, expected);
        long nanos = System.nanoTime() - start;
        Map<String, Long> delta = StoreCounters.delta(before, this.counters.read());
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("steps", ORDER_STEPS);
        figures.put("items", ORDER_ITEMS);
        figures.put("json_bytes", this.client.history("g").steps().get(0).result()
            .getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        figures.put("total_ms", nanos / 1e6);
        figures.put("us_per_step", nanos / 1e3 / ORDER_STEPS);
        figures.putAll(StoreCounters.perStep(delta, ORDER_STEPS));
        figures.put("recorded_steps", this.client.history("g").steps().size());
        Results.print("G", figures);
    }

    private void runOrders(String id, BenchFunctions.Pedido pedido, int steps, BenchFunctions.Pedido expected) {
        BenchFunctions.Pedido result = this.client.<BenchFunctions.Pedido>trigger("conferir", id, steps, pedido)
            .result(TIMEOUT);
        if (!result.equals(expected) || !result.total().toPlainString().equals(expected.total().toPlainString())) {
            throw new IllegalStateException(id + " returned " + result + ", expected " + expected);
        }
    }

    /** E. */
    private void firstCommand() {
        int runs = this.settings.triggers();
        long[] first = new long[runs];
        long[] triggerCall = new long[runs];
        long[] ended = new long[runs];
        for (int i = 0; i < runs; i++) {
            String id = "e-" + i;
            long start = System.nanoTime();
            SkailHandle<Integer> handle = this.client.trigger("probe", id, i);
            long triggered = System.nanoTime();
            check(handle.result(TIMEOUT), i);
            long end = System.nanoTime();
            Long firstCommand = BenchFunctions.FIRST_COMMAND_NANOS.get(id);
            if (firstCommand == null) {
                throw new IllegalStateException(id + " ended without its command noting its start");
            }
            first[i] = firstCommand - start;
            triggerCall[i] = triggered - start;
            ended[i] = end - start;
        }
        Stats stats = Stats.of(first);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("runs", runs);
        figures.put("p50_ms", stats.ms(50));
        figures.put("p99_ms", stats.ms(99));
        figures.put("mean_ms", stats.meanMs());
        figures.put("max_ms", stats.maxMs());
        figures.put("trigger_call_p50_ms", Stats.of(triggerCall).ms(50));
        figures.put("result_p50_ms", Stats.of(ended).ms(50));
        Results.print("E", figures);
    }

    /**
     * Runs {@code count} executions of {@code steps(10, i)}, {@code callers} threads each running one to its end at a
     * time; returns the duration of each.
     */
    private long[] closedLoop(String prefix, int count) throws Exception {
        long[] nanos = new long[count];
        AtomicInteger next = new AtomicInteger();
        ExecutorService callers = Executors.newFixedThreadPool(this.settings.callers());
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int c = 0; c < this.settings.callers(); c++) {
                futures.add(callers.submit(() -> {
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        long start = System.nanoTime();
                        runSteps(prefix + i, STEPS, i);
                        nanos[i] = System.nanoTime() - start;
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get();
            }
        }
        finally {
            callers.shutdownNow();
        }
        return nanos;
    }

    private void runSteps(String id, int steps, int input) {
        Integer result = this.client.<Integer>trigger("steps", id, steps, input).result(TIMEOUT);
        check(result, input + steps);
    }

    private static void check(Integer actual, int expected) {
        if (actual == null || actual != expected) {
            throw new IllegalStateException("an execution returned " + actual + ", expected " + expected);
        }
    }
}
