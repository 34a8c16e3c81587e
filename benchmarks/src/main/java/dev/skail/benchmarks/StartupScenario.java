package dev.skail.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.skail.benchmarks.startup.StartupApp;

import org.jspecify.annotations.Nullable;

/**
 * Scenario F: the start-up time the starter adds to an application. {@link StartupApp} is launched in fresh JVMs
 * (no JVM options) with the same arguments, interleaved: without the starter on its class path (Spring Boot's
 * {@code spring-boot-starter} only), with it on a new store (the first start: the schema is created), and with it on
 * an existing store (every later start: the schema is checked). One unmeasured launch of each comes first, so that the
 * files they read are in the operating system's cache for all. The figure is the median JVM uptime when
 * {@code SpringApplication.run} has returned, with the starter minus without it.
 * <p>
 * The starter's parts, read from Spring's start-up steps ({@code BufferingApplicationStartup}) and the log's times
 * (milliseconds):
 * <ul>
 * <li>enhancer: creating the {@code SkailBeanEnhancer} bean (it creates skail's JSON codec), and running it as a bean
 * factory post-processor (reading the functions, checking them, enhancing their beans);</li>
 * <li>analyzer: the determinism analyzer, which the enhancer runs (its own log line), part of the enhancer's time;</li>
 * <li>store: creating the store bean, split into the pool (HikariCP's {@code Starting...} to {@code Start completed.}),
 * the first connection (to HikariCP's {@code Added connection conn0}: opening the H2 database, or a PostgreSQL session)
 * and the schema (from then to the end of the bean: migration or check, and what the store does when it starts);</li>
 * <li>other skail beans: every other bean whose name starts with {@code skail} (runtime, worker, scheduler, client,
 * properties...);</li>
 * <li>the rest of the added time is not attributed: loading the starter's classes and auto-configurations, their
 * conditions, Spring AOP's proxy creator, the worker's start, and the pool's threads opening connections meanwhile.</li>
 * </ul>
 * <p>
 * The same in AOT mode: each class path (with and without the starter) is AOT-processed first, as
 * {@code spring-boot:process-aot} does ({@code SpringApplicationAotProcessor}, then the generated sources compiled),
 * and launched with {@code -Dspring.aot.enabled=true} on an existing store: without the starter, and with it. The
 * determinism analyzer does not run at start-up in AOT mode (it ran during AOT processing).
 * <p>
 * The same again with the JDK's AOT cache (JEP 483 and 514, JDK 25 and later: the classes of the application loaded and
 * linked ahead, read from a file at start-up) when such a JDK is found ({@link #aotCacheJdk()}): on the JVM and in AOT
 * mode, without the starter and with it on an existing store. Each class path is made of jars first (the cache takes
 * no class from a directory), then one training launch of each writes its cache ({@code -XX:AOTCacheOutput}), and every
 * measured launch must use it ({@code -XX:AOTMode=on -XX:AOTCache}).
 */
final class StartupScenario {

    static final String WITHOUT = "without";

    static final String FRESH = "with-new-store";

    static final String EXISTING = "with-existing-store";

    static final String WITHOUT_AOT = "without-aot";

    static final String EXISTING_AOT = "with-existing-store-aot";

    static final String WITHOUT_CACHE = "without-cache";

    static final String EXISTING_CACHE = "with-existing-store-cache";

    static final String WITHOUT_AOT_CACHE = "without-aot-cache";

    static final String EXISTING_AOT_CACHE = "with-existing-store-aot-cache";

    /** The variants of every round, in launch order. */
    static final List<String> VARIANTS = List.of(WITHOUT, FRESH, EXISTING, WITHOUT_AOT, EXISTING_AOT);

    /** The variants with the AOT cache, launched after the others in every round when a JDK has the cache. */
    static final List<String> CACHE_VARIANTS = List.of(WITHOUT_CACHE, EXISTING_CACHE, WITHOUT_AOT_CACHE,
            EXISTING_AOT_CACHE);

    /** The JDK release from which the AOT cache is measured: JEP 514's one-step training is in JDK 25. */
    static final int AOT_CACHE_RELEASE = 25;

    private static final Pattern ANALYZER = Pattern.compile("determinism analyzer checked .* in (\\d+) ms");

    private final Jvm jvm;

    private final String classPathWith;

    private final String classPathWithout;

    private final int launches;

    private final Path work;

    private final @Nullable Path aotCacheJdk;

    private final Map<String, String> classPaths = new HashMap<>();

    /** The jar made of each directory of a class path, by the directory's path. */
    private final Map<String, String> jars = new HashMap<>();

    /** The AOT cache of each variant that has one. */
    private final Map<String, Path> caches = new HashMap<>();

    StartupScenario(Jvm jvm, String classPathWith, String classPathWithout, int launches, Path work,
            @Nullable Path aotCacheJdk) {
        this.jvm = jvm;
        this.classPathWith = classPathWith;
        this.classPathWithout = classPathWithout;
        this.launches = launches;
        this.work = work;
        this.aotCacheJdk = aotCacheJdk;
    }

    /**
     * The JDK to measure the AOT cache with: {@code -Dbenchmark.aot-cache-jdk=<its home>} ({@code none}: not measured),
     * else this JVM's when it is recent enough, else the most recent one of at least {@value #AOT_CACHE_RELEASE} under
     * {@code /usr/lib/jvm}; {@code null} when there is none.
     */
    static @Nullable Path aotCacheJdk() throws IOException {
        String given = Settings.property("benchmark.aot-cache-jdk");
        if (given != null) {
            if (given.equals("none")) {
                return null;
            }
            Path home = Path.of(given);
            if (release(home) < AOT_CACHE_RELEASE) {
                throw new IllegalArgumentException("-Dbenchmark.aot-cache-jdk=" + given + ": not the home of a JDK "
                        + AOT_CACHE_RELEASE + " or later (its release file and bin/java)");
            }
            return home;
        }
        if (Runtime.version().feature() >= AOT_CACHE_RELEASE) {
            return Path.of(System.getProperty("java.home"));
        }
        Path installed = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(installed)) {
            return null;
        }
        try (java.util.stream.Stream<Path> homes = Files.list(installed)) {
            return homes.filter((home) -> release(home) >= AOT_CACHE_RELEASE)
                .max(java.util.Comparator.comparingInt(StartupScenario::release).thenComparing(Path::toString))
                .orElse(null);
        }
    }

    /** The feature release of the JDK at {@code home} (its {@code release} file), or -1 when it is not one. */
    static int release(Path home) {
        Path release = home.resolve("release");
        if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin").resolve("java"))) {
            return -1;
        }
        try {
            Matcher version = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(release));
            return version.find() ? Integer.parseInt(version.group(1)) : -1;
        }
        catch (IOException | RuntimeException ex) {
            return -1;
        }
    }

    /**
     * Runs the launches on one store and returns the figures ({@code F.<name>}).
     * @param store how each launch reaches its store: given a name for it (new for each new-store launch), the
     * {@code --skail.store...} arguments
     */
    Map<String, String> run(String label, java.util.function.Function<String, List<String>> store)
            throws IOException, InterruptedException {
        Map<String, List<Launch>> byVariant = new LinkedHashMap<>();
        this.classPaths.put(WITHOUT, this.classPathWithout);
        this.classPaths.put(FRESH, this.classPathWith);
        this.classPaths.put(EXISTING, this.classPathWith);
        this.classPaths.put(WITHOUT_AOT, aotProcessed(label, "without", this.classPathWithout));
        this.classPaths.put(EXISTING_AOT, aotProcessed(label, "with", this.classPathWith));
        launch(label, WITHOUT, store.apply("unmeasured"));
        launch(label, FRESH, store.apply("existing"));
        launch(label, WITHOUT_AOT, store.apply("unmeasured"));
        launch(label, EXISTING_AOT, store.apply("existing"));
        List<String> variants = new ArrayList<>(VARIANTS);
        if (this.aotCacheJdk != null) {
            for (String variant : CACHE_VARIANTS) {
                String uncached = variant.substring(0, variant.length() - "-cache".length());
                this.classPaths.put(variant, jarred(this.classPaths.get(uncached)));
                List<String> arguments = store.apply(isWithStarter(variant) ? "existing" : "unmeasured");
                train(label, variant, arguments);
                launch(label, variant, arguments);
                variants.add(variant);
            }
        }
        for (int i = 1; i <= this.launches; i++) {
            for (String variant : variants) {
                List<String> arguments = store.apply(variant.equals(FRESH) ? "new" + i : "existing");
                byVariant.computeIfAbsent(variant, (v) -> new ArrayList<>()).add(launch(label, variant, arguments));
            }
        }
        Map<String, String> figures = new LinkedHashMap<>();
        figures.put("F.launches", String.valueOf(this.launches));
        if (this.aotCacheJdk != null) {
            figures.put("F.aot_cache_jdk", this.aotCacheJdk.getFileName() + " (" + release(this.aotCacheJdk) + ")");
        }
        byVariant.forEach((variant, launches) -> {
            figures.put("F." + variant + ".uptime_ms", format(median(launches, (l) -> (double) l.uptimeMs())));
            figures.put("F." + variant + ".run_ms", format(median(launches, Launch::runMs)));
            figures.put("F." + variant + ".uptimes", launches.stream()
                .map((l) -> String.valueOf(l.uptimeMs()))
                .collect(Collectors.joining("/")));
            if (isWithStarter(variant)) {
                for (String part : launches.get(0).parts().keySet()) {
                    figures.put("F." + variant + "." + part + "_ms",
                            format(median(launches, (l) -> l.parts().getOrDefault(part, Double.NaN))));
                }
            }
        });
        return figures;
    }

    private Launch launch(String label, String variant, List<String> storeArguments)
            throws IOException, InterruptedException {
        List<String> arguments = arguments(storeArguments);
        List<String> options = new ArrayList<>(springAot(variant));
        Path javaHome = Path.of(System.getProperty("java.home"));
        if (variant.endsWith("-cache")) {
            // the cache or nothing: a launch that could not map it fails instead of measuring the JVM without it
            options.addAll(List.of("-XX:AOTMode=on", "-XX:AOTCache=" + this.caches.get(variant)));
            javaHome = java.util.Objects.requireNonNull(this.aotCacheJdk);
        }
        List<String> lines = this.jvm.run(javaHome, label + " F " + variant, options, this.classPaths.get(variant),
                StartupApp.class.getName(), arguments, (line) -> line.startsWith("STARTUP"));
        if (isSpringAot(variant) && lines.stream().noneMatch((line) -> line.contains("Starting AOT-processed"))) {
            throw new IllegalStateException(label + " F " + variant + ": the application did not start in AOT mode");
        }
        return Launch.parse(lines, isWithStarter(variant));
    }

    /** The application's arguments, the same for a training launch as for a measured one. */
    private static List<String> arguments(List<String> storeArguments) {
        List<String> arguments = new ArrayList<>(List.of("--skail.workload=startup:v1",
                "--logging.pattern.console=%d{" + StartupApp.TIME + "} %-5level [%thread] %logger : %msg%n",
                "--logging.level.com.zaxxer.hikari.pool.HikariPool=DEBUG"));
        arguments.addAll(storeArguments);
        return arguments;
    }

    /**
     * The training launch of a variant with the AOT cache: the JDK records the classes the application loads and
     * links, and writes the cache when it exits ({@code -XX:AOTCacheOutput}, JEP 514).
     */
    private void train(String label, String variant, List<String> storeArguments)
            throws IOException, InterruptedException {
        Path cache = this.work.resolve("f-" + label + "-" + variant + ".aot");
        Files.deleteIfExists(cache);
        List<String> arguments = arguments(storeArguments);
        List<String> options = new ArrayList<>(List.of("-XX:AOTCacheOutput=" + cache));
        options.addAll(springAot(variant));
        this.jvm.run(java.util.Objects.requireNonNull(this.aotCacheJdk), label + " F training " + variant, options,
                this.classPaths.get(variant), StartupApp.class.getName(), arguments, (line) -> false);
        if (!Files.isRegularFile(cache)) {
            throw new IllegalStateException(label + " F " + variant + ": the training launch wrote no AOT cache");
        }
        this.caches.put(variant, cache);
    }

    /**
     * The class path with each directory in it replaced by a jar of its files (the AOT cache, like class data sharing,
     * takes classes from jars only).
     */
    private String jarred(String classPath) throws IOException {
        List<String> entries = new ArrayList<>();
        for (String entry : classPath.split(java.io.File.pathSeparator)) {
            Path directory = Path.of(entry);
            // each directory jarred once: a cache refuses a jar whose time changed since its training
            entries.add(Files.isDirectory(directory) ? this.jars.computeIfAbsent(entry, (d) -> jar(directory)) : entry);
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private String jar(Path directory) {
        try {
            return writeJar(directory).toString();
        }
        catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    private Path writeJar(Path directory) throws IOException {
        Path jar = Files.createDirectories(this.work.resolve("f-jars"))
            .resolve(Integer.toHexString(directory.toAbsolutePath().toString().hashCode()) + "-" + directory.getFileName()
                    + ".jar");
        try (java.util.jar.JarOutputStream out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar));
                java.util.stream.Stream<Path> files = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) files.sorted()::iterator) {
                String name = directory.relativize(file).toString().replace(java.io.File.separatorChar, '/');
                if (name.isEmpty()) {
                    continue;
                }
                boolean isDirectory = Files.isDirectory(file);
                out.putNextEntry(new java.util.jar.JarEntry(isDirectory ? name + "/" : name));
                if (!isDirectory) {
                    Files.copy(file, out);
                }
                out.closeEntry();
            }
        }
        return jar;
    }

    private static boolean isWithStarter(String variant) {
        return variant.startsWith("with-");
    }

    private static boolean isSpringAot(String variant) {
        return variant.contains("-aot");
    }

    /** The JVM option that starts an AOT-processed application in AOT mode, for the variants that are. */
    private static List<String> springAot(String variant) {
        return isSpringAot(variant) ? List.of("-Dspring.aot.enabled=true") : List.of();
    }

    /**
     * AOT-processes {@link StartupApp} on a class path as {@code spring-boot:process-aot} does: Spring Boot's
     * {@code SpringApplicationAotProcessor} writes the generated sources, resources and classes, and the sources are
     * compiled.
     * @return the class path to launch the AOT-processed application with
     */
    private String aotProcessed(String label, String name, String classPath) throws IOException, InterruptedException {
        Path out = this.work.resolve("f-aot-" + label + "-" + name);
        org.springframework.util.FileSystemUtils.deleteRecursively(out);
        Path sources = out.resolve("sources");
        Path resources = out.resolve("resources");
        Path classes = out.resolve("classes");
        Path compiled = Files.createDirectories(out.resolve("compiled"));
        this.jvm.run(label + " F AOT processing " + name, List.of(), classPath,
                "org.springframework.boot.SpringApplicationAotProcessor",
                List.of(StartupApp.class.getName(), sources.toString(), resources.toString(), classes.toString(),
                        "dev.skail", "benchmarks-startup", "--skail.workload=startup:v1"),
                (line) -> false);
        List<String> javac = new ArrayList<>(List.of("-proc:none", "-nowarn", "-encoding", "UTF-8", "-d",
                compiled.toString(), "-classpath", classPath + java.io.File.pathSeparator + classes));
        try (java.util.stream.Stream<Path> files = Files.walk(sources)) {
            files.filter((file) -> file.toString().endsWith(".java")).forEach((file) -> javac.add(file.toString()));
        }
        java.io.ByteArrayOutputStream errors = new java.io.ByteArrayOutputStream();
        if (javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, errors, javac.toArray(String[]::new)) != 0) {
            throw new IllegalStateException(label + " F: the AOT-generated sources did not compile: " + errors);
        }
        String separator = java.io.File.pathSeparator;
        return compiled + separator + classes + separator + resources + separator + classPath;
    }

    private static double median(List<Launch> launches, java.util.function.ToDoubleFunction<Launch> figure) {
        double[] values = launches.stream().mapToDouble(figure).sorted().toArray();
        int middle = values.length / 2;
        return (values.length % 2 == 1) ? values[middle] : (values[middle - 1] + values[middle]) / 2;
    }

    private static String format(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** The class path of the application without the starter: the harness's classes and spring-boot-starter's. */
    static String classPathWithout(Path benchmarkClasses, Path baselineClassPathFile) throws IOException {
        return benchmarkClasses + java.io.File.pathSeparator + Files.readString(baselineClassPathFile).trim();
    }

    /** One launch: its figures, and the starter's parts when it had the starter. */
    record Launch(double runMs, long uptimeMs, Map<String, Double> parts) {

        static Launch parse(List<String> lines, boolean withStarter) {
            double runMs = -1;
            long uptimeMs = -1;
            Map<Long, Step> steps = new HashMap<>();
            Map<String, Long> logTimes = new HashMap<>();
            Double analyzer = null;
            for (String line : lines) {
                if (line.startsWith("STARTUP ")) {
                    for (String pair : line.substring(8).split(" ")) {
                        String[] kv = pair.split("=");
                        if (kv[0].equals("run_ms")) {
                            runMs = Double.parseDouble(kv[1]);
                        }
                        else if (kv[0].equals("uptime_ms")) {
                            uptimeMs = Long.parseLong(kv[1]);
                        }
                    }
                }
                else if (line.startsWith("STEP ")) {
                    Step step = Step.parse(line);
                    steps.put(step.id(), step);
                }
                else {
                    Long micros = logMicros(line);
                    if (micros != null) {
                        if (line.endsWith("skail - Starting...")) {
                            logTimes.putIfAbsent("pool-start", micros);
                        }
                        else if (line.endsWith("skail - Start completed.")) {
                            logTimes.putIfAbsent("pool-started", micros);
                        }
                        else if (line.contains("skail - Added connection ")) {
                            logTimes.putIfAbsent("first-connection", micros);
                        }
                        Matcher matcher = ANALYZER.matcher(line);
                        if (matcher.find()) {
                            analyzer = Double.parseDouble(matcher.group(1));
                        }
                    }
                }
            }
            if (runMs < 0 || uptimeMs < 0) {
                throw new IllegalStateException("the application did not report its start-up");
            }
            Map<String, Double> parts = new LinkedHashMap<>();
            if (withStarter) {
                parts(steps, logTimes, analyzer, parts);
            }
            return new Launch(runMs, uptimeMs, parts);
        }

        private static void parts(Map<Long, Step> steps, Map<String, Long> logTimes, @Nullable Double analyzer,
                Map<String, Double> parts) {
            Step enhancerBean = find(steps, "spring.beans.instantiate", "beanName=skailBeanEnhancer;");
            Step enhancerRun = find(steps, "spring.context.bean-factory.post-process", "SkailBeanEnhancer");
            Step store = find(steps, "spring.beans.instantiate", "beanName=skailExecutionStore;");
            double skailBeans = 0;
            for (Step step : steps.values()) {
                if (step.isSkailBean() && !(steps.containsKey(step.parent()) && steps.get(step.parent()).isSkailBean())) {
                    skailBeans += step.micros();
                }
            }
            parts.put("enhancer_bean", ms(enhancerBean.micros()));
            parts.put("enhancer_run", ms(enhancerRun.micros()));
            parts.put("analyzer", (analyzer != null) ? analyzer : Double.NaN);
            parts.put("store", ms(store.micros()));
            Long poolStart = logTimes.get("pool-start");
            Long poolStarted = logTimes.get("pool-started");
            Long firstConnection = logTimes.get("first-connection");
            if (poolStart != null && poolStarted != null && firstConnection != null) {
                parts.put("pool", ms(poolStarted - poolStart));
                parts.put("first_connection", ms(firstConnection - poolStarted));
                parts.put("schema", ms(store.start() + store.micros() - firstConnection));
            }
            parts.put("other_skail_beans", ms(skailBeans - enhancerBean.micros() - store.micros()));
            parts.put("attributed", ms(skailBeans + enhancerRun.micros()));
        }

        private static Step find(Map<Long, Step> steps, String name, String tag) {
            return steps.values()
                .stream()
                .filter((step) -> step.name().equals(name) && step.tags().contains(tag))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no start-up step " + name + " " + tag));
        }

        private static double ms(double micros) {
            return micros / 1000.0;
        }

        /** The time of a log line (its first word, as {@link StartupApp#TIME}) in microseconds of the day. */
        private static @Nullable Long logMicros(String line) {
            int space = line.indexOf(' ');
            if (space != StartupApp.TIME.length()) {
                return null;
            }
            try {
                return LocalTime.parse(line.substring(0, space)).toNanoOfDay() / 1000;
            }
            catch (RuntimeException ex) {
                return null;
            }
        }
    }

    /** A start-up step: {@code STEP <name> <start> <duration µs> <id> <parent id> <tags>}. */
    record Step(String name, long start, long micros, long id, long parent, String tags) {

        static Step parse(String line) {
            String[] parts = Arrays.copyOf(line.split(" "), 7);
            return new Step(parts[1], LocalTime.parse(parts[2]).toNanoOfDay() / 1000, Long.parseLong(parts[3]),
                    Long.parseLong(parts[4]), Long.parseLong(parts[5]), (parts[6] != null) ? parts[6] : "");
        }

        /** A bean of the starter: named {@code skail...}, or one of its auto-configuration classes. */
        boolean isSkailBean() {
            return this.name.equals("spring.beans.instantiate")
                    && (this.tags.startsWith("beanName=skail") || this.tags.startsWith("beanName=dev.skail."));
        }
    }
}
