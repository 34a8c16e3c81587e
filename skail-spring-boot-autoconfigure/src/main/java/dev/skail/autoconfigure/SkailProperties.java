package dev.skail.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.skail.analyzer.AnalyzerMode;
import dev.skail.platform.jdbc.SqlDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the skail runtime and its embedded platform.
 */
@ConfigurationProperties("skail")
public class SkailProperties {

    /**
     * Workload and version this runtime serves, as name:version (e.g. vendas:v1.0.0). Usually set with the
     * SKAIL_WORKLOAD environment variable.
     */
    private @Nullable String workload;

    /** Identity of this runtime instance, named on the leases it holds. Defaults to host name and a random suffix. */
    private @Nullable String instanceId;

    private final Store store = new Store();

    private final Worker worker = new Worker();

    private final Retry retry = new Retry();

    private final Http http = new Http();

    private final Analyzer analyzer = new Analyzer();

    private final HttpClient httpClient = new HttpClient();

    private final Replay replay = new Replay();

    private final Retention retention = new Retention();

    private final Schedules schedules = new Schedules();

    public @Nullable String getWorkload() {
        return this.workload;
    }

    public void setWorkload(@Nullable String workload) {
        this.workload = workload;
    }

    public @Nullable String getInstanceId() {
        return this.instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId;
    }

    public Store getStore() {
        return this.store;
    }

    public Worker getWorker() {
        return this.worker;
    }

    public Retry getRetry() {
        return this.retry;
    }

    public Http getHttp() {
        return this.http;
    }

    public Analyzer getAnalyzer() {
        return this.analyzer;
    }

    public Retention getRetention() {
        return this.retention;
    }

    public Schedules getSchedules() {
        return this.schedules;
    }

    public Replay getReplay() {
        return this.replay;
    }

    public HttpClient getHttpClient() {
        return this.httpClient;
    }

    public static class Schedules {

        /**
         * Whether this instance starts the ticks of the workload's @SkailSchedule functions (it also needs
         * skail.worker.enabled). The schedules are still listed when it does not.
         */
        private boolean enabled = true;

        /**
         * The longest time between two reads of the schedules (they are also read when the earliest next tick is
         * due): how soon a schedule another deployment changed is noticed.
         */
        private Duration pollInterval = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getPollInterval() {
            return this.pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }

    public static class Retention {

        /** How long an ended execution (completed, failed, cancelled) is kept before it is deleted; unset keeps all. */
        private @Nullable Duration endedAfter;

        /** How often ended executions are looked for. */
        private Duration interval = Duration.ofHours(1);

        /** How many executions one transaction deletes at most. */
        private int batchSize = 500;

        public @Nullable Duration getEndedAfter() {
            return this.endedAfter;
        }

        public void setEndedAfter(@Nullable Duration endedAfter) {
            this.endedAfter = endedAfter;
        }

        public Duration getInterval() {
            return this.interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return this.batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    public static class Replay {

        /**
         * Packages whose exception classes are rebuilt on replay, besides the JDK's, Spring's, the application's own
         * (those of @SpringBootApplication) and the types commands declare in throws; e.g. a client library's.
         */
        private List<String> exceptionPackages = new ArrayList<>();

        public List<String> getExceptionPackages() {
            return this.exceptionPackages;
        }

        public void setExceptionPackages(List<String> exceptionPackages) {
            this.exceptionPackages = exceptionPackages;
        }
    }

    public static class HttpClient {

        private final IdempotencyKey idempotencyKey = new IdempotencyKey();

        public IdempotencyKey getIdempotencyKey() {
            return this.idempotencyKey;
        }

        public static class IdempotencyKey {

            /**
             * Whether calls made inside a command with the auto-configured RestClient, RestTemplate and WebClient
             * builders carry the step's idempotency key.
             */
            private boolean enabled = true;

            /** Header that carries the idempotency key. */
            private String header = "Idempotency-Key";

            public boolean isEnabled() {
                return this.enabled;
            }

            public void setEnabled(boolean enabled) {
                this.enabled = enabled;
            }

            public String getHeader() {
                return this.header;
            }

            public void setHeader(String header) {
                this.header = header;
            }
        }
    }

    public static class Analyzer {

        /**
         * What start-up does with the sources of non-determinism the analyzer finds in functions: fail, warn, or off
         * (the analyzer does not run).
         */
        private AnalyzerMode mode = AnalyzerMode.FAIL;

        public AnalyzerMode getMode() {
            return this.mode;
        }

        public void setMode(AnalyzerMode mode) {
            this.mode = mode;
        }
    }

    public static class Store {

        /**
         * URL of the embedded platform's store: a JDBC URL (PostgreSQL, or H2), or local:<directory> (local:mem: in
         * memory). Defaults to the store skail keeps itself in the store directory.
         */
        private @Nullable String url;

        /** Directory of the default store. */
        private Path directory = Path.of(".skail");

        /** User name of the store's database. */
        private @Nullable String username;

        /** Password of the store's database. */
        private @Nullable String password;

        /**
         * Largest number of connections the store's own pool opens. Defaults to the worker concurrency plus 4 on the
         * embedded H2 store, and to half the worker concurrency plus 4 on PostgreSQL (the steps of executions that
         * write at once share one statement, so the worker's threads need fewer connections than there are of them).
         */
        private @Nullable Integer maxPoolSize;

        /** How long to wait for a connection of the store's pool. */
        private Duration connectionTimeout = Duration.ofSeconds(5);

        /** How many times a store operation that failed for a transport reason is tried before giving up. */
        private int maxAttempts = 5;

        /**
         * Schema the skail tables live in (lower-case letters, digits and underscores); the connection's default
         * schema when unset.
         */
        private @Nullable String schema;

        /**
         * Whether skail creates its schema and tables when they are missing (false: it creates nothing and checks at
         * start-up that the tables are there, at the version it needs).
         */
        private boolean initializeSchema = true;
        /** How long a trigger, fire, resume or query waits for an unreachable store before it answers 503. */
        private Duration requestTimeout = Duration.ofSeconds(5);

        public @Nullable String getUrl() {
            return this.url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public Path getDirectory() {
            return this.directory;
        }

        public void setDirectory(Path directory) {
            this.directory = directory;
        }

        public @Nullable String getUsername() {
            return this.username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return this.password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public @Nullable Integer getMaxPoolSize() {
            return this.maxPoolSize;
        }

        /**
         * The pool size set, or the default for the store's database and the worker's concurrency.
         * @param dialect the database of the execution store
         * @param concurrency the worker's concurrency
         */
        public int maxPoolSize(SqlDialect dialect, int concurrency) {
            if (this.maxPoolSize != null) {
                return this.maxPoolSize;
            }
            return ((dialect == SqlDialect.POSTGRESQL) ? concurrency / 2 : concurrency) + 4;
        }

        public void setMaxPoolSize(@Nullable Integer maxPoolSize) {
            this.maxPoolSize = maxPoolSize;
        }

        public Duration getConnectionTimeout() {
            return this.connectionTimeout;
        }

        public void setConnectionTimeout(Duration connectionTimeout) {
            this.connectionTimeout = connectionTimeout;
        }

        public int getMaxAttempts() {
            return this.maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public @Nullable String getSchema() {
            return this.schema;
        }

        public void setSchema(@Nullable String schema) {
            this.schema = schema;
        }

        public boolean isInitializeSchema() {
            return this.initializeSchema;
        }

        public void setInitializeSchema(boolean initializeSchema) {
            this.initializeSchema = initializeSchema;
        }

        public Duration getRequestTimeout() {
            return this.requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }
    }

    public static class Worker {

        /** Whether this application runs executions (false: it only triggers and queries them). */
        private boolean enabled = true;

        /**
         * How many executions run at once. Defaults to 8 per core, at least 32, on every store: the more executions
         * write together, the more of them one sync to disk (embedded) or one statement (PostgreSQL) covers. On
         * PostgreSQL the pool is half of it plus 4 by default (20 connections on up to 4 cores); see
         * {@link Store#getMaxPoolSize()}.
         */
        private @Nullable Integer concurrency;

        /**
         * How many due executions a claim may take beyond the worker's free threads while a backlog waits in the
         * store; they wait in this instance's queue (leased, their leases renewed) and run as threads come free.
         * Defaults to half the concurrency on the embedded H2 store (its claims wait for the group commit's next
         * batch), and to 0 on PostgreSQL (where another instance could run them at once).
         */
        private @Nullable Integer prefetch;

        /** How often the store is polled for due executions. */
        private Duration pollInterval = Duration.ofMillis(200);

        /** How many steps started with Skail.async run at once, all executions together; the rest wait their turn. */
        private int asyncThreads = 32;

        /** How long a claim on an execution lasts without renewal; a crashed instance's work is taken over after it. */
        private Duration leaseDuration = Duration.ofSeconds(30);

        /** How long shutdown waits for running deliveries to reach their next step boundary, where they stop. */
        private Duration shutdownTimeout = Duration.ofSeconds(30);

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable Integer getConcurrency() {
            return this.concurrency;
        }

        /** The concurrency set, or the default: 8 per core, at least 32, whatever the store. */
        public int concurrency() {
            if (this.concurrency != null) {
                return this.concurrency;
            }
            int cores = Runtime.getRuntime().availableProcessors();
            return Math.max(32, 8 * cores);
        }

        public void setConcurrency(@Nullable Integer concurrency) {
            this.concurrency = concurrency;
        }

        public @Nullable Integer getPrefetch() {
            return this.prefetch;
        }

        /**
         * The prefetch set, or the default for the store's database.
         * @param dialect the database of the execution store, or {@code null} for a store of the application's own
         */
        public int prefetch(@Nullable SqlDialect dialect) {
            if (this.prefetch != null) {
                return this.prefetch;
            }
            return (dialect == SqlDialect.H2) ? concurrency() / 2 : 0;
        }

        public void setPrefetch(@Nullable Integer prefetch) {
            this.prefetch = prefetch;
        }

        public int getAsyncThreads() {
            return this.asyncThreads;
        }

        public void setAsyncThreads(int asyncThreads) {
            this.asyncThreads = asyncThreads;
        }

        public Duration getPollInterval() {
            return this.pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Duration getLeaseDuration() {
            return this.leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }

        public Duration getShutdownTimeout() {
            return this.shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    public static class Retry {

        private final Backoff backoff = new Backoff();

        public Backoff getBackoff() {
            return this.backoff;
        }

        public static class Backoff {

            /** Wait before the first redelivery after a failure. */
            private Duration initial = Duration.ofSeconds(1);

            /** Growth of the wait per further attempt. */
            private double multiplier = 2.0;

            /** Longest wait between redeliveries. */
            private Duration max = Duration.ofMinutes(5);

            public Duration getInitial() {
                return this.initial;
            }

            public void setInitial(Duration initial) {
                this.initial = initial;
            }

            public double getMultiplier() {
                return this.multiplier;
            }

            public void setMultiplier(double multiplier) {
                this.multiplier = multiplier;
            }

            public Duration getMax() {
                return this.max;
            }

            public void setMax(Duration max) {
                this.max = max;
            }
        }
    }

    public static class Http {

        /** Whether the skail HTTP API (trigger and executions routes) is served. */
        private boolean enabled = true;

        /**
         * Key every skail route (and the Monitor) demands when set, in the X-Skail-Api-Key header or as the password
         * of HTTP Basic authentication.
         */
        private @Nullable String apiKey;

        /** Largest trigger or fire body accepted; larger ones get 413. */
        private DataSize maxBodySize = DataSize.ofMegabytes(1);

        /** Whether the Monitor page is served at /skail. */
        private boolean monitor = true;

        /**
         * Longest wait a GET /api/v1/executions/{id}?wait=... is answered after (longer waits are cut to it); each
         * waiting request holds no thread, but a connection.
         */
        private Duration maxWait = Duration.ofSeconds(30);

        /**
         * Most executions one bulk request (POST /api/v1/executions/cancel or /resume) acts on; the rest are skipped
         * and counted, for another request.
         */
        private int maxBulk = 1000;

        public int getMaxBulk() {
            return this.maxBulk;
        }

        public void setMaxBulk(int maxBulk) {
            this.maxBulk = maxBulk;
        }

        public Duration getMaxWait() {
            return this.maxWait;
        }

        public void setMaxWait(Duration maxWait) {
            this.maxWait = maxWait;
        }

        public boolean isMonitor() {
            return this.monitor;
        }

        public void setMonitor(boolean monitor) {
            this.monitor = monitor;
        }

        public boolean isEnabled() {
            return this.enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public @Nullable String getApiKey() {
            return this.apiKey;
        }

        public void setApiKey(@Nullable String apiKey) {
            this.apiKey = apiKey;
        }

        public DataSize getMaxBodySize() {
            return this.maxBodySize;
        }

        public void setMaxBodySize(DataSize maxBodySize) {
            this.maxBodySize = maxBodySize;
        }
    }
}
