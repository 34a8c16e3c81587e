package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.h2.store.fs.FileUtils;

/**
 * Loads and initializes the classes the embedded store opens with, ahead of the store itself: H2's engine, its
 * MVStore file store, the statements of skail's schema and the connection pool's classes. It works on a private
 * database in H2's in-memory file system, deleted after, and touches no file, no network and no database of the
 * application (PostgreSQL's driver, when present, is only loaded). Nothing it builds is kept: the store opens its own
 * database as before, finding these classes ready. Called at start-up from a background thread (see
 * {@code SkailBackgroundPreinitializer}).
 */
public final class StorePreloading {

    private static final List<String> POOL_CLASSES = List.of("com.zaxxer.hikari.HikariConfig",
            "com.zaxxer.hikari.HikariDataSource", "com.zaxxer.hikari.pool.HikariPool",
            "com.zaxxer.hikari.pool.PoolEntry", "com.zaxxer.hikari.pool.ProxyFactory",
            "com.zaxxer.hikari.pool.HikariProxyConnection", "com.zaxxer.hikari.pool.HikariProxyStatement",
            "com.zaxxer.hikari.pool.HikariProxyPreparedStatement", "com.zaxxer.hikari.pool.HikariProxyResultSet",
            "com.zaxxer.hikari.pool.HikariProxyDatabaseMetaData", "com.zaxxer.hikari.util.ConcurrentBag",
            // the proxy a closed connection is replaced by, made (a java.lang.reflect.Proxy class) when first closed
            "com.zaxxer.hikari.pool.ProxyConnection$ClosedConnection",
            "com.zaxxer.hikari.util.FastList", "com.zaxxer.hikari.util.UtilityElf",
            // PostgreSQL's driver, when the application has it: its session opens with these
            "org.postgresql.Driver", "org.postgresql.jdbc.PgConnection", "org.postgresql.core.v3.ConnectionFactoryImpl",
            "org.postgresql.core.v3.QueryExecutorImpl", "org.postgresql.jdbc.PgPreparedStatement",
            "org.postgresql.jdbc.PgResultSet");

    /** How long the store, about to open, waits for the preloading running at that moment to end. */
    static final Duration MOST_A_STORE_WAITS = Duration.ofSeconds(10);

    private static final PreloadGate GATE = new PreloadGate();

    private static final Log logger = LogFactory.getLog(StorePreloading.class);

    private StorePreloading() {
    }

    /**
     * To be called by the application's thread that is about to create the store, before it touches H2, the pool or a
     * JDBC driver: a preloading that has not started then never does (the store loads what it needs itself), and one
     * that is running is waited for (at most {@link #MOST_A_STORE_WAITS}, then the store opens anyway, with a
     * warning): all of it for an H2 store, its pool's and drivers' part (which comes first) for another. Two threads
     * that initialize one library's classes at once can each wait for a class the other is initializing, for ever:
     * H2's {@code FilePath} and its wrappers did (see {@code H2Urls}), and no library promises there is no other such
     * pair.
     * @param h2 whether the store is H2's
     */
    public static void beforeTheStoreOpens(boolean h2) {
        if (!GATE.closeOrAwait(MOST_A_STORE_WAITS, h2)) {
            logger.warn("skail's background preloading of the store's classes has not ended after "
                    + MOST_A_STORE_WAITS.toSeconds() + " s: opening the store meanwhile");
        }
    }

    /**
     * The pool copies its configuration field by field, by reflection, when it is created: the field accessors the JDK
     * makes for that the first time (method handles, from JDK 18 on) are made here instead, once per field, and kept by
     * the JDK. Not when the pool is told to read a configuration file ({@code hikaricp.configurationFile}): this opens
     * no file.
     */
    private static void preparePoolConfiguration() {
        if (System.getProperty("hikaricp.configurationFile") != null) {
            return;
        }
        try {
            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
            config.setPoolName("skail-preload");
            config.copyStateTo(new com.zaxxer.hikari.HikariConfig());
        }
        catch (RuntimeException | LinkageError ex) {
            // another version of the pool: the store's pool does this itself
        }
    }

    /**
     * Loads the pool's (and PostgreSQL driver's) classes; with {@code h2}, opens a throwaway H2 database in memory,
     * creates skail's schema in it and reads it back, then deletes it.
     * @param h2 whether the store may be H2 (the default embedded store)
     * @throws SQLException when H2 refuses (nothing is left behind either way)
     */
    public static void preload(boolean h2) throws SQLException {
        if (!GATE.open()) {
            return;
        }
        try {
            preloadNow(h2);
        }
        finally {
            GATE.over();
        }
    }

    /**
     * Loads and initializes the classes the embedded store (the store skail keeps itself) opens with: H2's storage
     * engine and skail's maps on it, through a throwaway store in memory that takes a trigger, a claim and a history
     * read. No pool, no driver, no file.
     */
    public static void preloadLocal() {
        if (!GATE.open()) {
            return;
        }
        try {
            GATE.poolReady();
            dev.skail.platform.local.LocalStore store = dev.skail.platform.local.LocalStore.inMemory();
            try {
                dev.skail.platform.ExecutionRow row = new dev.skail.platform.ExecutionRow("skail-preload",
                        "skail-preload", "v", "preload", "[]", dev.skail.ExecutionStatus.PENDING, null, null, 1, 0, 0L,
                        0, 0, null);
                store.create(row, List.of(new dev.skail.platform.Tag("skail", "preload")));
                store.claimDue("skail-preload", "v", "skail-preload", 1, 1, 2, java.util.Set.of());
                store.history("skail-preload");
                store.search(dev.skail.SkailQuery.all(), 0, 1);
            }
            finally {
                store.close();
            }
        }
        finally {
            GATE.over();
        }
    }

    private static void preloadNow(boolean h2) throws SQLException {
        ClassLoader loader = StorePreloading.class.getClassLoader();
        for (String name : POOL_CLASSES) {
            try {
                Class.forName(name, true, loader);
            }
            catch (ClassNotFoundException | LinkageError ex) {
                // not on the class path (PostgreSQL's driver is optional), or another version: the store loads what
                // it needs itself
            }
        }
        preparePoolConfiguration();
        GATE.poolReady();
        if (!h2) {
            return;
        }
        String name = "skail-preload-" + UUID.randomUUID();
        String database = "memFS:" + name;
        try (Connection connection = new org.h2.Driver().connect("jdbc:h2:" + database + ";FILE_LOCK=NO",
                new Properties()); Statement statement = connection.createStatement()) {
            statement.execute(SchemaMigrations.VERSION_TABLE);
            for (List<String> migration : SchemaMigrations.all(SqlDialect.H2)) {
                for (String sql : migration) {
                    statement.execute(sql);
                }
            }
            try (ResultSet rs = statement.executeQuery("SELECT MAX(version) FROM skail_schema")) {
                rs.next();
            }
            statement.execute("SHUTDOWN");
        }
        finally {
            // the database's files (name.mv.db, maybe name.trace.db) in H2's in-memory file system
            for (String file : FileUtils.newDirectoryStream("memFS:")) {
                if (FileUtils.getName(file).startsWith(name + ".")) {
                    FileUtils.delete(file);
                }
            }
        }
    }
}
