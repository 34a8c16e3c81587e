package dev.skail.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One store's table: each figure next to the target for it, and whether it meets it. The figures come from
 * the scenario JVMs' result lines ({@code scenario.key -> value}).
 */
final class Report {

    /** D's target is stated for this many sleeping executions. */
    private static final int SLEEPERS_TARGET = 100_000;

    private final String store;

    private final Map<String, String> figures;

    private final List<String> rows = new ArrayList<>();

    private Report(String store, Map<String, String> figures) {
        this.store = store;
        this.figures = figures;
    }

    /** The table of one store, in Markdown. */
    static List<String> table(String store, Map<String, String> figures) {
        Report report = new Report(store, figures);
        report.rows.add("| | figure | measured | target | |");
        report.rows.add("|---|---|---|---|---|");
        report.durability();
        report.a();
        report.b();
        report.c();
        report.d();
        report.e();
        report.g();
        report.f();
        return report.rows;
    }

    /** Whether the store is embedded (its own counts of syncs), not PostgreSQL. */
    private boolean h2() {
        return !this.store.equals(Settings.POSTGRESQL);
    }

    private void durability() {
        if (!has("store.durable")) {
            return;
        }
        boolean durable = Boolean.parseBoolean(get("store.durable"));
        if (h2() && has("whole.commits")) {
            row("", "durability: commits synced to the device before they were acknowledged / syncs, in A, B, C, E, G and "
                    + "their warm-up",
                    String.format(Locale.ROOT, "%,d / %,d (%.2f syncs per commit, %.2f commits per sync)",
                            (long) num("whole.commits"), (long) num("whole.syncs"),
                            num("whole.syncs") / Math.max(1, num("whole.commits")),
                            num("whole.commits") / Math.max(1, num("whole.syncs"))),
                    "every commit synced", verdict(durable));
        }
        else {
            row("", "durability: the server's settings", "fsync and synchronous_commit "
                    + (durable ? "on" : "NOT both on"), "on", verdict(durable));
        }
        row("", "worker concurrency (skail.worker.concurrency)", get("store.concurrency"), "", "");
        if (has("floor")) {
            row("", "floor of a durable commit in this database, without skail's runtime (on H2 through the store's own "
                    + "file system, a plain file's in brackets)", get("floor"), "", "");
        }
    }

    private void a() {
        if (!has("A.median_ms")) {
            return;
        }
        double target = h2() ? 3 : 5;
        row("A", "function of 10 no-op commands, " + (int) num("A.runs") + " in sequence: median / p99 per execution",
                String.format(Locale.ROOT, "%.2f / %.2f ms%s", num("A.median_ms"), num("A.p99_ms"), perStep("A")),
                "median ≤ " + (int) target + " ms", verdict(num("A.median_ms") <= target));
    }

    private void b() {
        if (!has("B.executions_per_s")) {
            return;
        }
        double target = h2() ? 1000 : 500;
        String groups = has("B.commits_per_sync")
                ? String.format(Locale.ROOT, "; %.1f commits per sync", num("B.commits_per_sync")) : "";
        row("B", String.format(Locale.ROOT, "%,d such executions, %d callers each running one to its end at a time",
                (long) num("B.executions"), (long) num("B.callers")),
                String.format(Locale.ROOT, "%,.0f executions/s (%,.0f steps/s), p99 %.1f ms, median %.1f ms%s%s",
                        num("B.executions_per_s"), num("B.steps_per_s"), num("B.p99_ms"), num("B.median_ms"),
                        perStep("B"), groups),
                String.format(Locale.ROOT, "≥ %,d executions/s", (long) target),
                verdict(num("B.executions_per_s") >= target));
    }

    private void c() {
        List<Integer> sizes = new ArrayList<>();
        for (String key : this.figures.keySet()) {
            if (key.matches("C\\d+\\.us_per_step")) {
                sizes.add(Integer.parseInt(key.substring(1, key.indexOf('.'))));
            }
        }
        if (sizes.isEmpty()) {
            return;
        }
        sizes.sort(null);
        for (int n : sizes) {
            String c = "C" + n;
            row("C", String.format(Locale.ROOT, "one function of %,d sequential steps: per step", n),
                    String.format(Locale.ROOT, "%.0f µs (%,.0f ms in all, %,d steps recorded)%s", num(c + ".us_per_step"),
                            num(c + ".total_ms"), (long) num(c + ".recorded_steps"), perStep(c)),
                    "", "");
        }
        String smallest = "C" + sizes.get(0);
        String largest = "C" + sizes.get(sizes.size() - 1);
        if (has("Cstore.us_per_step") && has("Cstore.function_again_us_per_step")) {
            double alone = num("Cstore.us_per_step");
            double whole = num("Cstore.function_again_us_per_step");
            row("C", String.format(Locale.ROOT, "the same %,d steps written to the store alone (its rows as the runtime "
                    + "writes them, no function run), before and after the function run again: per step",
                    (long) num("Cstore.steps")),
                    String.format(Locale.ROOT, "%.0f / %.0f µs%s; the function again %.0f µs: the runtime adds %.0f µs "
                            + "(%.0f %% of a warm step)", num("Cstore.us_per_step_before"),
                            num("Cstore.us_per_step_after"), perStep("Cstore"), whole, whole - alone,
                            100 * (whole - alone) / whole),
                    "", "");
        }
        if (sizes.size() > 1) {
            double ratio = num(largest + ".us_per_step") / num(smallest + ".us_per_step");
            row("C", String.format(Locale.ROOT, "linearity: per step at %,d / at %,d", sizes.get(sizes.size() - 1),
                    sizes.get(0)), String.format(Locale.ROOT, "%.2f", ratio), "≤ 1.5", verdict(ratio <= 1.5));
        }
        if (has(largest + ".write_xacts_per_step") && sizes.size() > 1) {
            // the execution's own writes (trigger, claim, end) are paid once: the step's cost is the growth's slope
            int small = sizes.get(0);
            int large = sizes.get(sizes.size() - 1);
            double atSmall = num(smallest + ".write_xacts_per_step") * small;
            double atLarge = num(largest + ".write_xacts_per_step") * large;
            double perStep = (atLarge - atSmall) / (large - small);
            String all = has(largest + ".all_commits_per_step") ? String.format(Locale.ROOT,
                    "; all commits at %,d, read-only ones and idle polls included (pg_stat_database.xact_commit): "
                            + "%.3f per step", large, num(largest + ".all_commits_per_step")) : "";
            row("C", String.format(Locale.ROOT, "write transactions per step (transaction ids handed out): each step "
                    + "beyond %,d, and the execution's own", small),
                    String.format(Locale.ROOT, "%.3f per step + %.0f per execution (%.4f per step at %,d)%s", perStep,
                            atSmall - perStep * small, num(largest + ".write_xacts_per_step"), large, all),
                    // the slope also takes in the writes that come with time, not steps (lease renewals, the
                    // instance's heartbeat): one of those in a run of thousands of steps is not a step's
                    "≤ 1 per step", verdict(perStep < 1.0005));
        }
    }

    private void d() {
        if (!has("D.sleepers")) {
            return;
        }
        long sleepers = (long) num("D.sleepers");
        double heap = num("D.heap_asleep_mib");
        String extrapolated = "";
        if (sleepers != SLEEPERS_TARGET) {
            heap = num("D.heap_idle_mib") + num("D.heap_bytes_per_sleeper") * SLEEPERS_TARGET / 1048576.0;
            extrapolated = String.format(Locale.ROOT, "; %.0f MiB extrapolated to %,d", heap, SLEEPERS_TARGET);
        }
        row("D", String.format(Locale.ROOT, "%,d executions asleep (Skail.delay, then one command): heap used after GC",
                sleepers), String.format(Locale.ROOT, "%.0f MiB (%.0f MiB idle before; %.1f bytes per sleeping "
                        + "execution%s)", num("D.heap_asleep_mib"), num("D.heap_idle_mib"),
                        num("D.heap_bytes_per_sleeper"), extrapolated),
                "< 256 MiB for 100,000", verdict(heap < 256));
        row("D", String.format(Locale.ROOT, "put to sleep, %d callers triggering: trigger to all WAITING",
                (long) num("D.callers")),
                String.format(Locale.ROOT, "%,.0f executions/s (%.1f s; the triggers alone %,.0f/s)",
                        num("D.asleep_per_s"), num("D.asleep_s"), num("D.trigger_per_s")),
                "≥ 5,000/s", verdict(num("D.asleep_per_s") >= 5000));
        row("D", "woken: delay passed to all COMPLETED", String.format(Locale.ROOT, "%,.0f executions/s (%.1f s; a "
                + "count of the store took %.0f ms)", num("D.woken_per_s"), num("D.woken_s"),
                num("D.count_mean_ms")), "≥ 5,000/s", verdict(num("D.woken_per_s") >= 5000));
        row("D", "threads: idle / all asleep / at most (new ones)", String.format(Locale.ROOT, "%d / %d / %d (%s)",
                (long) num("D.threads_idle"), (long) num("D.threads_asleep"), (long) num("D.threads_at_most"),
                get("D.new_threads")) + transientThreads(), "no extra thread",
                verdict(num("D.extra_threads") <= 0));
    }

    /** The threads D left out of its count as coming and going on their own, when it saw any. */
    private String transientThreads() {
        String seen = has("D.transient_threads_seen") ? get("D.transient_threads_seen") : "none";
        return "none".equals(seen) ? "" : "; left out, as they come and go whatever sleeps: " + seen;
    }

    private void g() {
        if (!has("G.us_per_step")) {
            return;
        }
        String vsC = has("C100.us_per_step") ? String.format(Locale.ROOT, "; %.2f× C's step of an int",
                num("G.us_per_step") / num("C100.us_per_step")) : "";
        row("G", String.format(Locale.ROOT, "one function of %,d sequential steps, each taking and returning an order "
                + "of %d items (BigDecimal amounts, an offset date-time; %,d bytes of JSON): per step",
                (long) num("G.steps"), (long) num("G.items"), (long) num("G.json_bytes")),
                String.format(Locale.ROOT, "%.0f µs (%,d steps recorded, the result equal, scale included)%s%s",
                        num("G.us_per_step"), (long) num("G.recorded_steps"), perStep("G"), vsC),
                "", "");
    }

    private void e() {
        if (!has("E.p99_ms")) {
            return;
        }
        row("E", String.format(Locale.ROOT, "trigger → first command starts, %d sequential triggers: p50 / p99",
                (long) num("E.runs")),
                String.format(Locale.ROOT, "%.2f / %.2f ms (trigger call alone p50 %.2f ms; result p50 %.2f ms)",
                        num("E.p50_ms"), num("E.p99_ms"), num("E.trigger_call_p50_ms"), num("E.result_p50_ms")),
                "p99 ≤ 5 ms", verdict(num("E.p99_ms") <= 5));
    }

    private void f() {
        if (!has("F." + StartupScenario.WITHOUT + ".uptime_ms")) {
            return;
        }
        Map<String, String> baselines = Map.of(StartupScenario.EXISTING, StartupScenario.WITHOUT,
                StartupScenario.FRESH, StartupScenario.WITHOUT, StartupScenario.EXISTING_AOT,
                StartupScenario.WITHOUT_AOT, StartupScenario.EXISTING_CACHE, StartupScenario.WITHOUT_CACHE,
                StartupScenario.EXISTING_AOT_CACHE, StartupScenario.WITHOUT_AOT_CACHE);
        String jdk = has("F.aot_cache_jdk") ? get("F.aot_cache_jdk") : "";
        Map<String, String> kinds = Map.of(StartupScenario.EXISTING, "existing store (every later start)",
                StartupScenario.FRESH, "new store (the first start, schema created)",
                StartupScenario.EXISTING_AOT, "AOT mode (-Dspring.aot.enabled=true), existing store",
                StartupScenario.EXISTING_CACHE, "with the JDK's AOT cache (" + jdk + ", -XX:AOTCache), existing store",
                StartupScenario.EXISTING_AOT_CACHE, "AOT mode with the JDK's AOT cache (" + jdk + "), existing store");
        for (String variant : List.of(StartupScenario.EXISTING, StartupScenario.FRESH, StartupScenario.EXISTING_AOT,
                StartupScenario.EXISTING_CACHE, StartupScenario.EXISTING_AOT_CACHE)) {
            String with = "F." + variant + ".uptime_ms";
            String without = "F." + baselines.get(variant) + ".uptime_ms";
            if (!has(with) || !has(without)) {
                continue;
            }
            double added = num(with) - num(without);
            String kind = kinds.get(variant);
            row("F", "start-up added by the starter (JVM start → context ready), " + kind,
                    String.format(Locale.ROOT, "+%.0f ms (%.0f ms with, %.0f ms without; medians of %s launches)",
                            added, num(with), num(without), get("F.launches")),
                    "≤ 150 ms", verdict(added <= 150));
            String p = "F." + variant + ".";
            if (has(p + "enhancer_run_ms")) {
                row("F", "… of which, " + kind,
                        String.format(Locale.ROOT, "enhancer %.0f ms to create (skail's JSON codec) + %.0f ms to run "
                                + "(analyzer %s), store %.0f ms (%s), "
                                + "other skail beans %.0f ms; not attributed %.0f ms", num(p + "enhancer_bean_ms"),
                                num(p + "enhancer_run_ms"), Double.isNaN(num(p + "analyzer_ms"))
                                        ? "not at start-up: it ran during AOT processing"
                                        : String.format(Locale.ROOT, "%.0f ms", num(p + "analyzer_ms")),
                                num(p + "store_ms"),
                                Double.isNaN(num(p + "pool_ms")) ? "no pool: its files opened and the log read"
                                        : String.format(Locale.ROOT, "pool %.0f, first connection %.0f, schema %.0f",
                                                num(p + "pool_ms"), num(p + "first_connection_ms"),
                                                num(p + "schema_ms")),
                                num(p + "other_skail_beans_ms"), added - num(p + "attributed_ms")),
                        "", "");
            }
        }
        if (jdk.isEmpty()) {
            row("F", "with the JDK's AOT cache", "none".equals(Settings.property("benchmark.aot-cache-jdk"))
                    ? "not measured (-Dbenchmark.aot-cache-jdk=none)"
                    : "not measured: no JDK " + StartupScenario.AOT_CACHE_RELEASE
                            + " or later found (-Dbenchmark.aot-cache-jdk=<its home>)", "", "");
        }
    }

    private String perStep(String scenario) {
        if (has(scenario + ".syncs_per_step")) {
            String barrier = has(scenario + ".barrier_forces_per_step") ? String.format(Locale.ROOT,
                    " (+ %.2f forces before space was written over)", num(scenario + ".barrier_forces_per_step")) : "";
            return String.format(Locale.ROOT, "; %.2f commits, %.2f syncs per step%s",
                    num(scenario + ".commits_per_step"), num(scenario + ".syncs_per_step"), barrier);
        }
        if (has(scenario + ".write_xacts_per_step")) {
            return String.format(Locale.ROOT, "; %.2f write transactions per step",
                    num(scenario + ".write_xacts_per_step"));
        }
        return "";
    }

    private void row(String scenario, String figure, String measured, String target, String verdict) {
        this.rows.add("| " + scenario + " | " + figure + " | " + measured + " | " + target + " | " + verdict + " |");
    }

    private static String verdict(boolean met) {
        return met ? "met" : "**not met**";
    }

    private boolean has(String key) {
        return this.figures.containsKey(key);
    }

    private String get(String key) {
        String value = this.figures.get(key);
        return (value != null) ? value : "?";
    }

    private double num(String key) {
        @Nullable String value = this.figures.get(key);
        return (value != null) ? Double.parseDouble(value) : Double.NaN;
    }
}
