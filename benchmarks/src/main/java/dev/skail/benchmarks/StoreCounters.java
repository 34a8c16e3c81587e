package dev.skail.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import dev.skail.platform.ExecutionStore;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.local.LocalStore;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * The store's own count of its durable work, read around a measurement (outside the timed part).
 * <ul>
 * <li>Embedded H2: {@link JdbcExecutionStore#syncs()}, the commits that waited to be on the device before anyone was
 * told (every write of the store), the syncs ({@code fsync}) that made them so, and the forces the file made besides
 * them, before H2 wrote over space it had written before.</li>
 * <li>PostgreSQL: write transactions, counted by the transaction ids the cluster handed out (PostgreSQL gives an id to
 * a transaction when it first writes, and only then; the next id is {@code pg_snapshot_xmax(pg_current_snapshot())}).
 * That counts every writing transaction of the whole cluster in the interval, so it may count more than skail's, never
 * fewer. For a cross-check, {@code xact_commit} of the benchmark's database in {@code pg_stat_database} counts every
 * commit, read-only ones too (the worker's idle polls among them); backends publish it up to 10 s late, so it is read
 * after a pause ({@link #settledCommits()}).</li>
 * </ul>
 */
abstract class StoreCounters implements AutoCloseable {

    /** The counters now. */
    abstract Map<String, Long> read();

    /** One line on the store and how durable it is, for the report. */
    abstract String describe();

    /** Whether the store acknowledges a write only once it is on the device. */
    abstract boolean durable();

    /** Whether {@link #settledCommits()} counts anything. */
    boolean countsAllCommits() {
        return false;
    }

    /** All commits in the benchmark's database after waiting for the backends to publish them (PostgreSQL only). */
    long settledCommits() {
        throw new UnsupportedOperationException("only PostgreSQL counts all commits");
    }

    @Override
    public void close() {
    }

    static StoreCounters of(ConfigurableApplicationContext context) {
        ExecutionStore store = context.getBean(ExecutionStore.class);
        String url = context.getEnvironment().getProperty("skail.store.url");
        if (url != null && url.startsWith("jdbc:postgresql:")) {
            return new PostgreSql(url, context.getEnvironment().getProperty("skail.store.username"),
                    context.getEnvironment().getProperty("skail.store.password"));
        }
        if (store instanceof LocalStore local && local.file() != null) {
            return new Local(local);
        }
        if (store instanceof JdbcExecutionStore jdbc && jdbc.syncs().isPresent()) {
            return new H2(jdbc, String.valueOf(context.getEnvironment().getProperty("skail.store.url")));
        }
        throw new IllegalStateException("not an embedded H2 file store nor PostgreSQL: " + store);
    }

    /** {@code after - before}, key by key. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new LinkedHashMap<>();
        after.forEach((key, value) -> delta.put(key, value - before.getOrDefault(key, 0L)));
        return delta;
    }

    /** The counters divided by {@code steps}, as {@code <counter>_per_step}. */
    static Map<String, Object> perStep(Map<String, Long> delta, long steps) {
        Map<String, Object> figures = new LinkedHashMap<>();
        delta.forEach((key, value) -> figures.put(key + "_per_step", (double) value / steps));
        return figures;
    }

    private static final class H2 extends StoreCounters {

        private final JdbcExecutionStore store;

        private final String url;

        H2(JdbcExecutionStore store, String url) {
            this.store = store;
            this.url = url;
        }

        @Override
        Map<String, Long> read() {
            JdbcExecutionStore.Syncs syncs = this.store.syncs().orElseThrow();
            Map<String, Long> counters = new LinkedHashMap<>();
            counters.put("commits", syncs.commits());
            counters.put("syncs", syncs.syncs());
            counters.put("barrier_forces", syncs.barrierForces());
            return counters;
        }

        @Override
        String describe() {
            return "H2 " + org.h2.engine.Constants.FULL_VERSION + " SQL file store (the embedded default before the "
                    + "store skail keeps itself, skail.store.url=" + this.url + "; each commit synced to the device before it is acknowledged, one sync for the "
                    + "commits that wait together)";
        }

        @Override
        boolean durable() {
            return true;
        }
    }

    private static final class Local extends StoreCounters {

        private final LocalStore store;

        Local(LocalStore store) {
            this.store = store;
        }

        @Override
        Map<String, Long> read() {
            LocalStore.Syncs syncs = this.store.syncs();
            Map<String, Long> counters = new LinkedHashMap<>();
            counters.put("commits", syncs.durableWrites());
            counters.put("syncs", syncs.forces());
            counters.put("barrier_forces", syncs.barrierForces());
            return counters;
        }

        @Override
        String describe() {
            return "embedded store (the default: the store skail keeps itself, " + this.store.file() + ", its maps "
                    + "on H2 " + org.h2.engine.Constants.FULL_VERSION + "'s MVStore; each write's record forced in its "
                    + "log before it is acknowledged, one force for the writes that wait together)";
        }

        @Override
        boolean durable() {
            return true;
        }
    }

    private static final class PostgreSql extends StoreCounters {

        private final Connection connection;

        private final String url;

        PostgreSql(String url, String username, String password) {
            this.url = url;
            Properties properties = new Properties();
            if (username != null) {
                properties.setProperty("user", username);
            }
            if (password != null) {
                properties.setProperty("password", password);
            }
            try {
                this.connection = DriverManager.getConnection(url, properties);
                this.connection.setAutoCommit(true);
            }
            catch (SQLException ex) {
                throw new IllegalStateException("cannot read the counters of " + url + ": " + ex.getMessage(), ex);
            }
        }

        @Override
        Map<String, Long> read() {
            Map<String, Long> counters = new LinkedHashMap<>();
            counters.put("write_xacts", Long.parseLong(query("SELECT pg_snapshot_xmax(pg_current_snapshot())::text")));
            return counters;
        }

        @Override
        boolean countsAllCommits() {
            return true;
        }

        @Override
        long settledCommits() {
            try {
                // a backend publishes its statistics when it goes idle, at most once a second, or after 10 s idle
                Thread.sleep(11_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return Long.parseLong(
                    query("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"));
        }

        @Override
        String describe() {
            return "PostgreSQL " + query("SHOW server_version") + " (" + query("SELECT string_agg(name || '=' || "
                    + "setting, ', ' ORDER BY name) FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', "
                    + "'wal_sync_method', 'full_page_writes')") + "), database " + this.url.replaceAll("\\?.*", "");
        }

        @Override
        boolean durable() {
            return "on".equals(query("SHOW fsync")) && "on".equals(query("SHOW synchronous_commit"));
        }

        private String query(String sql) {
            try (Statement statement = this.connection.createStatement();
                    ResultSet rs = statement.executeQuery(sql)) {
                rs.next();
                return rs.getString(1);
            }
            catch (SQLException ex) {
                throw new IllegalStateException(sql + ": " + ex.getMessage(), ex);
            }
        }

        @Override
        public void close() {
            try {
                this.connection.close();
            }
            catch (SQLException ex) {
                // the run is over
            }
        }
    }
}
