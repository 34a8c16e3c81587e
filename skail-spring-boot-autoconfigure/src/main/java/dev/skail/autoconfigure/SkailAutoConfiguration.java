package dev.skail.autoconfigure;

import java.net.InetAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.skail.SkailClient;
import dev.skail.SkailJsonCustomizer;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import dev.skail.platform.jdbc.DeadlineDataSource;
import dev.skail.platform.jdbc.H2Urls;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreExceptionOverride;
import dev.skail.platform.jdbc.StorePreloading;
import dev.skail.platform.jdbc.StoreRetry;
import dev.skail.platform.local.H2FileMigration;
import dev.skail.platform.local.LocalStore;
import dev.skail.runtime.Backoff;
import dev.skail.runtime.DefaultSkailClient;
import dev.skail.runtime.ExceptionCodec;
import dev.skail.runtime.RuntimePresence;
import dev.skail.runtime.RuntimeSettings;
import dev.skail.runtime.SkailBeanEnhancer;
import dev.skail.runtime.SkailJson;
import dev.skail.runtime.SkailRetention;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailScheduler;
import dev.skail.runtime.SkailWorker;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the skail runtime on the embedded platform: the bean enhancer that intercepts functions
 * and commands, the store (its own connection pool, never the application's {@code DataSource}), the runtime,
 * the worker and the client. Time comes from a {@link Clock} bean named {@value #CLOCK_BEAN_NAME} when there is one
 * (tests put a virtual clock there), otherwise from the system clock: the application's own {@link Clock} beans (a
 * business clock that is fixed or offset) never drive leases, polling, delays or {@code Skail.now()}.
 */
@AutoConfiguration
@EnableConfigurationProperties(SkailProperties.class)
public final class SkailAutoConfiguration {

    /** The name of the {@link Clock} bean skail reads time from, when there is one; the system clock otherwise. */
    public static final String CLOCK_BEAN_NAME = "skailClock";


    @Bean
    static SkailBeanEnhancer skailBeanEnhancer() {
        return new SkailBeanEnhancer(SkailJson.createDefault());
    }

    @Bean
    @ConditionalOnMissingBean
    SkailJson skailJson(ObjectProvider<SkailJsonCustomizer> customizers) {
        return SkailJson.createDefault(customizers.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    ExecutionStore skailExecutionStore(SkailProperties properties) {
        SkailProperties.Store store = properties.getStore();
        String configured = (store.getUrl() != null) ? store.getUrl() : defaultUrl(store.getDirectory());
        if (configured.startsWith(LOCAL_URL)) {
            // H2's storage engine: the preloading of its classes is done, or never starts, before this thread's use
            StorePreloading.beforeTheStoreOpens(true);
            return localStore(configured);
        }
        // the start-up's background preloading is done with the store's classes, or never starts, before this thread
        // touches them
        StorePreloading.beforeTheStoreOpens(configured.toLowerCase(java.util.Locale.ROOT).startsWith("jdbc:h2:"));
        String url = durableUrl(configured);
        SqlDialect dialect = SqlDialect.fromUrl(url);
        HikariConfig config = new HikariConfig();
        config.setPoolName("skail");
        config.setJdbcUrl(url);
        config.setUsername(store.getUsername());
        config.setPassword(store.getPassword());
        config.setMaximumPoolSize(store.maxPoolSize(dialect, properties.getWorker().concurrency()));
        config.setConnectionTimeout(store.getConnectionTimeout().toMillis());
        config.setInitializationFailTimeout(-1);
        String schema = schema(store.getSchema());
        if (schema != null) {
            config.setSchema(schema);
            if (dialect == SqlDialect.H2 && store.isInitializeSchema()) {
                createH2Schema(url, store.getUsername(), store.getPassword(), schema);
            }
        }
        if (dialect == SqlDialect.H2) {
            // H2 closes the database after a failed write (a full disk): drop its sessions, a new one reopens it
            config.setExceptionOverride(new StoreExceptionOverride());
        }
        if (dialect == SqlDialect.POSTGRESQL) {
            // a transaction of skail's is a few statements with nothing run in between; one left open for longer than
            // a lease belongs to an instance that froze in it (a long GC pause, SIGSTOP, a suspended VM): PostgreSQL
            // ends that session, so the rows it locked do not keep the other instances from taking its executions
            // over (their claims skip locked rows)
            long idle = Math.max(1_000, properties.getWorker().getLeaseDuration().toMillis());
            config.setConnectionInitSql("SET idle_in_transaction_session_timeout = " + idle);
            // the store's statements count on READ COMMITTED (a claim's second statement reads what committed before
            // its row locks), whatever default the database sets
            config.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        }
        HikariDataSource dataSource = new HikariDataSource(config);
        StoreRetry retry = new StoreRetry(dialect, store.getMaxAttempts(), java.time.Duration.ofMillis(100),
                java.time.Duration.ofSeconds(5));
        retry.onDatabaseClosed(() -> softEvictConnections(dataSource));
        JdbcExecutionStore executionStore = new JdbcExecutionStore(new DeadlineDataSource(dataSource), dialect, retry,
                dataSource, schema, store.isInitializeSchema());
        executionStore.initialize();
        return executionStore;
    }

    /** The URL prefix of the store skail keeps itself, without SQL (see {@link LocalStore}). */
    static final String LOCAL_URL = "local:";

    /**
     * The store skail keeps itself: {@code local:<directory>} (its file in that directory, created when missing) or
     * {@code local:mem:} (in memory, nothing survives the process; {@code local:mem:<name>}, the store of that name in
     * this process, kept until it ends).
     */
    private static LocalStore localStore(String url) {
        String where = url.substring(LOCAL_URL.length());
        if (where.startsWith("mem:")) {
            String name = where.substring("mem:".length());
            LocalStore local = name.isEmpty() ? LocalStore.inMemory() : LocalStore.inMemory(name);
            local.initialize();
            return local;
        }
        if (where.isBlank()) {
            throw new InvalidConfigurationPropertyValueException("skail.store.url", url,
                    "local: needs a directory (local:/var/lib/app/skail) or mem: (local:mem:)");
        }
        Path directory = Path.of(where).toAbsolutePath();
        try {
            java.nio.file.Files.createDirectories(directory);
        }
        catch (java.io.IOException ex) {
            throw new IllegalStateException("skail could not create the store's directory " + directory + ": "
                    + ex.getMessage(), ex);
        }
        // the history of the earlier embedded store (an H2 file in this directory) moved in, once
        H2FileMigration.migrateIfNeeded(directory);
        LocalStore local = LocalStore.open(directory.resolve(LocalStore.FILE_NAME));
        try {
            local.initialize();
        }
        catch (RuntimeException ex) {
            local.close();
            throw ex;
        }
        return local;
    }

    /** The schema the store's tables live in, checked: it is quoted in SQL and set on every connection. */
    static @Nullable String schema(@Nullable String schema) {
        if (schema == null || schema.isEmpty()) {
            return null;
        }
        if (!schema.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new InvalidConfigurationPropertyValueException("skail.store.schema", schema,
                    "use lower-case letters, digits and underscores (at most 63, not starting with a digit)");
        }
        return schema;
    }

    /**
     * H2 refuses a connection whose schema does not exist, so the schema is created before the pool opens (H2 is
     * local: no outage to wait for). PostgreSQL's schema is created by the store's migration.
     */
    private static void createH2Schema(String url, @Nullable String username, @Nullable String password,
            String schema) {
        try (Connection connection = DriverManager.getConnection(url, username, password);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\"");
        }
        catch (SQLException ex) {
            throw new IllegalStateException("skail could not create schema '" + schema + "' in " + url + ": "
                    + ex.getMessage(), ex);
        }
    }

    private static void softEvictConnections(HikariDataSource dataSource) {
        if (dataSource.getHikariPoolMXBean() != null) {
            dataSource.getHikariPoolMXBean().softEvictConnections();
        }
    }

    /** The application's store URL, made as durable as the default one (see {@link H2Urls#durable(String)}). */
    static String durableUrl(String url) {
        try {
            return H2Urls.durable(url);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidConfigurationPropertyValueException("skail.store.url", url, ex.getMessage());
        }
    }

    /**
     * The store when {@code skail.store.url} is not set: the store skail keeps itself, in the store directory (see
     * {@link LocalStore}).
     */
    static String defaultUrl(Path directory) {
        return LOCAL_URL + directory.toAbsolutePath();
    }

    /**
     * The URL of an H2 file store in {@code directory}, as the embedded default was before the store skail keeps
     * itself: {@code skail.store.url} set to it keeps an application on H2's SQL engine.
     */
    public static String h2FileUrl(Path directory) {
        // skail: the H2 file kept ahead of H2's writes, so that a sync forces data alone (see H2Urls); FILE_LOCK=FS:
        // the lock dies with the process; WRITE_DELAY=0: H2 writes each commit before it returns (and the store syncs
        // it before telling anyone, see H2GroupSync); QUERY_CACHE_SIZE: the store's statements are parsed once per
        // connection, not again and again (8 by default)
        return H2Urls.PREALLOCATED_FILE + directory.toAbsolutePath().resolve("skail")
                + ";FILE_LOCK=FS;WRITE_DELAY=0;QUERY_CACHE_SIZE=64";
    }

    /**
     * The schedules live in the execution store's database: its JDBC store's own tables. An application that brings
     * another {@link ExecutionStore} brings a {@link ScheduleStore} too, or its schedules are listed but never started.
     */
    @Bean
    @ConditionalOnMissingBean
    ScheduleStore skailScheduleStore(ExecutionStore store) {
        if (store instanceof JdbcExecutionStore jdbc) {
            return jdbc.scheduleStore();
        }
        if (store instanceof LocalStore local) {
            return local.scheduleStore();
        }
        return new ScheduleStore() {

            @Override
            public ScheduleRow register(ScheduleRow declared, long now) {
                throw new IllegalStateException("skail cannot keep schedules in " + store.getClass().getName()
                        + ": declare a ScheduleStore bean");
            }

            @Override
            public List<ScheduleRow> schedules(String workload) {
                return List.of();
            }

            @Override
            public boolean fire(ScheduleRow schedule, long tick, @Nullable Long following, ExecutionRow execution,
                    long now) {
                return false;
            }
        };
    }

    @Bean
    @ConditionalOnMissingBean
    ExceptionCodec skailExceptionCodec(BeanFactory beanFactory, SkailBeanEnhancer enhancer,
            SkailProperties properties) {
        List<String> packages = new ArrayList<>(properties.getReplay().getExceptionPackages());
        if (AutoConfigurationPackages.has(beanFactory)) {
            packages.addAll(AutoConfigurationPackages.get(beanFactory));
        }
        return new ExceptionCodec(packages, enhancer::isDeclaredException);
    }

    @Bean
    @ConditionalOnMissingBean
    SkailRuntime skailRuntime(ExecutionStore store, SkailBeanEnhancer enhancer, BeanFactory beanFactory,
            SkailJson json, ExceptionCodec exceptions, @Qualifier(CLOCK_BEAN_NAME) ObjectProvider<Clock> clock,
            SkailProperties properties, ObjectProvider<ScheduleStore> scheduleStore) {
        if (enhancer.isJsonCheckDeferred()) {
            enhancer.checkJson(json);
        }
        enhancer.checkExceptions(exceptions);
        SkailRuntime runtime = new SkailRuntime(store, enhancer::catalog, beanFactory, json,
                clock.getIfAvailable(Clock::systemUTC), settings(properties), exceptions);
        runtime.setRequestTimeout(properties.getStore().getRequestTimeout());
        scheduleStore.ifAvailable(runtime::setScheduleStore);
        return runtime;
    }

    static RuntimeSettings settings(SkailProperties properties) {
        String workload = properties.getWorkload();
        if (workload == null || workload.isBlank()) {
            throw new InvalidConfigurationPropertyValueException("skail.workload", workload,
                    "skail needs the workload and version this application serves: set skail.workload (or the "
                            + "SKAIL_WORKLOAD environment variable) to name:version, e.g. vendas:v1.0.0");
        }
        int colon = workload.indexOf(':');
        if (colon <= 0 || colon == workload.length() - 1 || workload.indexOf(':', colon + 1) >= 0
                || !workload.matches("[A-Za-z0-9._:-]+")) {
            throw new InvalidConfigurationPropertyValueException("skail.workload", workload,
                    "use name:version with letters, digits, '.', '_' or '-', e.g. vendas:v1.0.0");
        }
        SkailProperties.Retry.Backoff backoff = properties.getRetry().getBackoff();
        String instanceId = (properties.getInstanceId() != null) ? properties.getInstanceId() : defaultInstanceId();
        return new RuntimeSettings(workload.substring(0, colon), workload.substring(colon + 1), instanceId,
                properties.getWorker().getLeaseDuration(),
                new Backoff(backoff.getInitial(), backoff.getMultiplier(), backoff.getMax()),
                properties.getWorker().getAsyncThreads());
    }

    private static String defaultInstanceId() {
        return instanceId(hostName(System::getenv, Path.of("/proc/sys/kernel/hostname"),
                SkailAutoConfiguration::lookedUpHostName));
    }

    /** The default instance id on a machine of this name: the name's first 64 characters and a random suffix. */
    static String instanceId(String host) {
        // a host name is at most 253 characters; the id is named on every lease and must stay short
        return host.substring(0, Math.min(host.length(), 64)) + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * This machine's name, read without a name lookup where the platform allows: {@code HOSTNAME} (set in containers,
     * a pod's name on Kubernetes), the kernel's name on Linux, {@code COMPUTERNAME} on Windows; only then
     * {@code lookUp}: {@link InetAddress#getLocalHost()}, which resolves the name (seconds at start-up on a machine
     * whose own name does not resolve; on macOS, where none of the three is usually set, that lookup is still made).
     */
    static String hostName(java.util.function.Function<String, @Nullable String> environment, Path kernelHostName,
            java.util.function.Supplier<String> lookUp) {
        String set = environment.apply("HOSTNAME");
        if (set != null && !set.isBlank()) {
            return set.strip();
        }
        try {
            String kernel = java.nio.file.Files.readString(kernelHostName).strip();
            if (!kernel.isEmpty()) {
                return kernel;
            }
        }
        catch (java.io.IOException | RuntimeException ex) {
            // not Linux
        }
        String windows = environment.apply("COMPUTERNAME");
        if (windows != null && !windows.isBlank()) {
            return windows.strip();
        }
        return lookUp.get();
    }

    private static String lookedUpHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (Exception ex) {
            return "localhost";
        }
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "skail.worker.enabled", matchIfMissing = true)
    SkailWorker skailWorker(SkailRuntime runtime, ExecutionStore store,
            @Qualifier(CLOCK_BEAN_NAME) ObjectProvider<Clock> clock,
            SkailProperties properties) {
        SkailProperties.Worker worker = properties.getWorker();
        // the store skail keeps itself is local as H2 is: as many workers, the same prefetch
        SqlDialect dialect = (store instanceof JdbcExecutionStore jdbc) ? jdbc.dialect()
                : (store instanceof LocalStore) ? SqlDialect.H2 : null;
        return new SkailWorker(runtime, store, clock.getIfAvailable(Clock::systemUTC), worker.concurrency(),
                worker.prefetch(dialect), worker.getPollInterval(), worker.getShutdownTimeout());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "skail.worker.enabled", matchIfMissing = true)
    @ConditionalOnBooleanProperty(name = "skail.schedules.enabled", matchIfMissing = true)
    SkailScheduler skailScheduler(SkailRuntime runtime, ScheduleStore store,
            @Qualifier(CLOCK_BEAN_NAME) ObjectProvider<Clock> clock, SkailProperties properties) {
        return new SkailScheduler(runtime, store, clock.getIfAvailable(Clock::systemUTC),
                properties.getSchedules().getPollInterval());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "skail.worker.enabled", matchIfMissing = true)
    RuntimePresence skailRuntimePresence(ExecutionStore store, SkailRuntime runtime,
            @Qualifier(CLOCK_BEAN_NAME) ObjectProvider<Clock> clock) {
        return new RuntimePresence(store, runtime.settings(), clock.getIfAvailable(Clock::systemUTC));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "skail.retention.ended-after")
    SkailRetention skailRetention(ExecutionStore store, @Qualifier(CLOCK_BEAN_NAME) ObjectProvider<Clock> clock,
            SkailProperties properties) {
        SkailProperties.Retention retention = properties.getRetention();
        return new SkailRetention(store, clock.getIfAvailable(Clock::systemUTC),
                java.util.Objects.requireNonNull(retention.getEndedAfter()), retention.getInterval(),
                retention.getBatchSize());
    }

    @Bean
    @ConditionalOnMissingBean
    SkailClient skailClient(SkailRuntime runtime) {
        return new DefaultSkailClient(runtime);
    }
}
