package dev.skail.benchmarks;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * The harness {@code ./bin/benchmark} runs: scenarios A to G on each store, every scenario group in fresh JVMs (A, B, C,
 * E and G share one; D has its own; F launches its application many times), then one table per store with the issue's
 * targets, and the machine. The tables are printed and written to {@code benchmarks/target/results/}, beside the
 * whole output of every JVM.
 * <p>
 * The stores are configured as an application configures them, nothing weakened: the embedded H2 file store by its
 * directory alone (the default URL: every commit synced to the device before it is acknowledged), PostgreSQL by
 * {@code skail.store.url} (a database created for the run and dropped after it). Settings: see {@link Settings} and
 * {@code docs/performance.md}.
 */
public final class Benchmark {

    private static final Pattern POSTGRES_URL = Pattern.compile("^(jdbc:postgresql://[^/?]*/)([^?]*)(.*)$");

    private final Settings settings;

    private final Path root;

    private final Path work;

    private final Jvm jvm;

    private final String classPath;

    /** F: the JDK the AOT cache is measured with, checked before anything runs; {@code null}: not measured. */
    private final @Nullable Path aotCacheJdk;

    private Benchmark(Settings settings, Path root, Path work, Jvm jvm, String classPath) throws IOException {
        this.settings = settings;
        this.root = root;
        this.work = work;
        this.jvm = jvm;
        this.classPath = classPath;
        this.aotCacheJdk = settings.runs("F") ? StartupScenario.aotCacheJdk() : null;
    }

    public static void main(String[] args) throws Exception {
        Settings settings = Settings.fromSystemProperties();
        Path root = Path.of("").toAbsolutePath();
        String classPath = Files.readString(root.resolve("benchmarks/target/classpath.txt")).trim();
        OffsetDateTime started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS);
        Path results = Files.createDirectories(root.resolve("benchmarks/target/results"));
        String stamp = started.format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path logFile = results.resolve("benchmark-" + stamp + ".log");
        Path work = Files.createTempDirectory("skail-benchmark");
        List<String> report = new ArrayList<>();
        try (PrintWriter log = new PrintWriter(Files.newBufferedWriter(logFile, StandardCharsets.UTF_8))) {
            report.add("## skail benchmark, " + started + ", commit " + System.getProperty("benchmark.commit", "?"));
            report.add("");
            report.add(sizes(settings));
            report.add("");
            report.add("| machine | |");
            report.add("|---|---|");
            Machine.describe(work).forEach((key, value) -> report.add("| " + key + " | " + value + " |"));
            report.forEach(System.out::println);
            new Benchmark(settings, root, work, new Jvm(log), classPath).run(report);
            report.add("");
            report.add("Load average at the end (1 min): " + Machine.load() + "; whole output: " + root.relativize(logFile)
                    + ".");
        }
        finally {
            delete(work);
        }
        Path reportFile = results.resolve("benchmark-" + stamp + ".md");
        Files.write(reportFile, report, StandardCharsets.UTF_8);
        System.out.println();
        report.forEach(System.out::println);
        System.out.println();
        System.out.println("Written to " + root.relativize(reportFile));
    }

    private void run(List<String> report) throws Exception {
        for (String store : this.settings.stores()) {
            long start = System.nanoTime();
            Map<String, String> figures = new LinkedHashMap<>();
            String description;
            if (store.equals(Settings.H2)) {
                figures.put("floor", CommitFloor.h2(Files.createDirectories(this.work.resolve("h2-floor"))));
                description = measure(store, figures,
                        (part) -> List.of("-Dskail.store.url=" + SkailAutoConfiguration.h2FileUrl(this.work
                            .resolve("h2-" + part))),
                        (name) -> List.of("--skail.store.url=" + SkailAutoConfiguration.h2FileUrl(this.work
                            .resolve("f-" + name))));
            }
            else if (store.equals(Settings.EMBEDDED)) {
                description = measure(store, figures, (part) -> List.of("-Dskail.store.directory=" + this.work
                    .resolve("embedded-" + part)), (name) -> List.of("--skail.store.directory=" + this.work
                        .resolve("ef-" + name)));
            }
            else {
                description = measurePostgreSql(figures);
            }
            report.add("");
            report.add("### " + description);
            report.add("");
            report.addAll(Report.table(store, figures));
            System.out.printf(Locale.ROOT, "%s done in %.0f s%n", store, (System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * Runs the scenarios on one store and returns the store's description.
     * @param storeOptions the JVM options that configure the store of one scenario JVM (given a name for its part)
     * @param startupStore the arguments that configure the store of one launch of F (given a name for the store)
     */
    private String measure(String store, Map<String, String> figures, Function<String, List<String>> storeOptions,
            Function<String, List<String>> startupStore) throws Exception {
        String description = store;
        if (Stream.of("A", "B", "C", "E", "G").anyMatch(this.settings::runs)) {
            List<String> lines = scenarioJvm(store + " A,B,C,E,G", storeOptions.apply("core"), CoreScenarios.class);
            description = lines.stream()
                .filter((line) -> line.startsWith(CoreScenarios.STORE_NOTE))
                .findFirst()
                .map((line) -> line.substring(CoreScenarios.STORE_NOTE.length()))
                .orElse(store);
            lines.forEach((line) -> figures.putAll(Results.parse(line)));
        }
        if (this.settings.runs("D")) {
            scenarioJvm(store + " D", storeOptions.apply("sleep"), SleepScenario.class)
                .forEach((line) -> figures.putAll(Results.parse(line)));
        }
        if (this.settings.runs("F")) {
            String with = store.equals(Settings.POSTGRESQL) ? this.classPath : withoutPostgreSqlDriver(this.classPath);
            String without = StartupScenario.classPathWithout(this.root.resolve("benchmarks/target/classes"),
                    this.root.resolve("benchmarks/baseline/target/classpath.txt"));
            figures.putAll(new StartupScenario(this.jvm, with, without, this.settings.launches(), this.work,
                    this.aotCacheJdk).run(store,
                    startupStore));
        }
        return description;
    }

    private String measurePostgreSql(Map<String, String> figures) throws Exception {
        String url = Settings.property("skail.store.url");
        if (url == null) {
            url = Settings.property("benchmark.postgres.url");
        }
        if (url == null || !url.startsWith("jdbc:postgresql:")) {
            throw new IllegalStateException("PostgreSQL: give -Dskail.store.url=jdbc:postgresql://... (bin/benchmark "
                    + "starts bin/test-postgres's cluster when it is not given), or -Dstores=h2");
        }
        String username = Settings.property("skail.store.username");
        String password = Settings.property("skail.store.password");
        String database = "skail_bench_" + Long.toString(System.currentTimeMillis(), 36);
        execute(url, username, password, "CREATE DATABASE " + database);
        try {
            String benchUrl = withDatabase(url, database);
            figures.put("floor", CommitFloor.postgreSql(benchUrl, username, password));
            List<String> credentials = new ArrayList<>();
            if (username != null) {
                credentials.add("skail.store.username=" + username);
            }
            if (password != null) {
                credentials.add("skail.store.password=" + password);
            }
            return measure(Settings.POSTGRESQL, figures, (part) -> {
                List<String> options = new ArrayList<>(List.of("-Dskail.store.url=" + benchUrl));
                credentials.forEach((c) -> options.add("-D" + c));
                return options;
            }, (name) -> {
                List<String> arguments = new ArrayList<>(List.of("--skail.store.url=" + benchUrl,
                        "--skail.store.schema=f_" + name.toLowerCase(Locale.ROOT).replace('-', '_')));
                credentials.forEach((c) -> arguments.add("--" + c));
                return arguments;
            });
        }
        finally {
            execute(url, username, password, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    private List<String> scenarioJvm(String label, List<String> storeOptions, Class<?> main)
            throws IOException, InterruptedException {
        List<String> options = new ArrayList<>();
        options.addAll(Arrays.asList(System.getProperty("benchmark.jvm", "-Xmx1g").split(" +")));
        options.addAll(Settings.asJvmOptions());
        String concurrency = Settings.property("skail.worker.concurrency");
        if (concurrency != null) {
            options.add("-Dskail.worker.concurrency=" + concurrency);
        }
        options.addAll(storeOptions);
        return this.jvm.run(label, options, this.classPath, main.getName(), List.of(),
                (line) -> line.startsWith("# ") || line.startsWith(Results.PREFIX));
    }

    private static String sizes(Settings settings) {
        String growth = Arrays.stream(settings.growth())
            .mapToObj((n) -> String.format(Locale.ROOT, "%,d", n))
            .collect(Collectors.joining(" / "));
        return String.format(Locale.ROOT, "Scenarios %s on %s. Sizes: warm-up %d; A %d in sequence; B %,d executions, "
                + "%d callers; C %s steps; D %,d asleep, %d callers; E %d triggers; F %d launches of each variant.",
                String.join(",", settings.scenarios()), String.join(", ", settings.stores()), settings.warmup(),
                settings.sequential(), settings.executions(), settings.callers(), growth, settings.sleepers(),
                settings.callers(), settings.triggers(), settings.launches());
    }

    /** The class path without PostgreSQL's driver, which an application on H2 would not have. */
    private static String withoutPostgreSqlDriver(String classPath) {
        return Arrays.stream(classPath.split(File.pathSeparator))
            .filter((entry) -> !entry.contains("/org/postgresql/postgresql/"))
            .collect(Collectors.joining(File.pathSeparator));
    }

    static String withDatabase(String url, String database) {
        Matcher matcher = POSTGRES_URL.matcher(url);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL with a database: " + url);
        }
        return matcher.group(1) + database + matcher.group(3);
    }

    private static void execute(String url, @Nullable String username, @Nullable String password, String sql)
            throws SQLException {
        Properties properties = new Properties();
        if (username != null) {
            properties.setProperty("user", username);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        try (Connection connection = DriverManager.getConnection(url, properties);
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static void delete(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
