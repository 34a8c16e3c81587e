package dev.skail.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The settings of a run, read from system properties: {@code bin/benchmark} passes its {@code -D} options through, and
 * the harness passes them on to the JVMs it starts.
 *
 * @param stores the stores to measure, in order: {@code h2} (the default embedded H2 file) and {@code postgresql}
 * @param scenarios the scenarios to run, among A to G
 * @param warmup executions run before A, B and E are measured (and before D counts threads and heap)
 * @param sequential A: executions run one after another
 * @param executions B: executions in the burst
 * @param callers B and D: caller threads, each triggering one execution at a time (B waits for it to end)
 * @param growth C: the numbers of sequential steps of the one function, smallest first
 * @param sleepers D: executions put to sleep at once
 * @param triggers E: sequential triggers
 * @param launches F: measured launches of each variant (after one unmeasured launch of each)
 */
record Settings(List<String> stores, Set<String> scenarios, int warmup, int sequential, int executions, int callers,
        int[] growth, int sleepers, int triggers, int launches) {

    /** The embedded default: the store skail keeps itself, in {@code skail.store.directory}. */
    static final String EMBEDDED = "embedded";

    /** The embedded store of earlier versions, an H2 SQL file ({@code skail.store.url=jdbc:h2:...}). */
    static final String H2 = "h2";

    static final String POSTGRESQL = "postgresql";

    /** The system properties that carry the settings, passed on to every JVM the harness starts. */
    static final List<String> PROPERTIES = List.of("stores", "scenarios", "quick", "warmup", "sequential",
            "executions", "callers", "growth", "sleepers", "triggers", "launches");

    static Settings fromSystemProperties() {
        boolean quick = Boolean.getBoolean("quick");
        List<String> stores = new ArrayList<>();
        for (String store : list("stores", "embedded,postgresql")) {
            String name = store.toLowerCase(Locale.ROOT);
            if (name.equals("pg") || name.equals("postgres")) {
                name = POSTGRESQL;
            }
            if (name.equals("local") || name.equals("default")) {
                name = EMBEDDED;
            }
            if (!name.equals(H2) && !name.equals(POSTGRESQL) && !name.equals(EMBEDDED)) {
                throw new IllegalArgumentException("-Dstores: unknown store '" + store + "' (embedded, h2, postgresql)");
            }
            stores.add(name);
        }
        Set<String> scenarios = new LinkedHashSet<>();
        for (String scenario : list("scenarios", "A,B,C,D,E,F,G")) {
            String name = scenario.toUpperCase(Locale.ROOT);
            if (!name.matches("[A-G]")) {
                throw new IllegalArgumentException("-Dscenarios: unknown scenario '" + scenario + "' (A to G)");
            }
            scenarios.add(name);
        }
        int[] growth = list("growth", quick ? "100,1000,2000" : "100,1000,10000").stream()
            .mapToInt(Integer::parseInt)
            .sorted()
            .toArray();
        if (java.util.Arrays.stream(growth).distinct().count() != growth.length) {
            // each size is one execution, named by its size
            throw new IllegalArgumentException("-Dgrowth lists a size twice: " + java.util.Arrays.toString(growth));
        }
        return new Settings(stores, scenarios, Integer.getInteger("warmup", quick ? 30 : 100),
                Integer.getInteger("sequential", quick ? 100 : 200), Integer.getInteger("executions", quick ? 500 : 2000),
                Integer.getInteger("callers", 32), growth, Integer.getInteger("sleepers", quick ? 10_000 : 100_000),
                Integer.getInteger("triggers", quick ? 200 : 500), Integer.getInteger("launches", quick ? 3 : 5));
    }

    boolean runs(String scenario) {
        return this.scenarios.contains(scenario);
    }

    /** The {@code -D} options that give another JVM these settings. */
    static List<String> asJvmOptions() {
        List<String> options = new ArrayList<>();
        for (String name : PROPERTIES) {
            String value = System.getProperty(name);
            if (value != null) {
                options.add("-D" + name + "=" + value);
            }
        }
        return options;
    }

    private static List<String> list(String property, String defaults) {
        return Arrays.stream(System.getProperty(property, defaults).split(","))
            .map(String::trim)
            .filter((s) -> !s.isEmpty())
            .toList();
    }

    static @Nullable String property(String name) {
        String value = System.getProperty(name);
        return (value == null || value.isBlank()) ? null : value;
    }
}
