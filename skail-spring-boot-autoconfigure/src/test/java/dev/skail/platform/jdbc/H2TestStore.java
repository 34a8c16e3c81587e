package dev.skail.platform.jdbc;

import java.nio.file.Path;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;

/** A store on H2 with its own pool and quick retries, for the store's own tests. */
final class H2TestStore {

    private H2TestStore() {
    }

    /**
     * A store on a fresh in-memory database.
     * @param name a prefix of the database's name
     * @param settings H2 settings appended to the URL (each starting with {@code ;}), or empty
     */
    static JdbcExecutionStore open(String name, String settings) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl("jdbc:h2:mem:" + name + "-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1" + settings);
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), dataSource);
        store.initialize();
        return store;
    }

    /**
     * A store on the database file {@code database} ({@code <database>.mv.db}), as the starter opens its embedded
     * store: through the store's own file system, each commit synced, its file compacted while it runs. Closing the
     * store closes its pool.
     * @param database the file's path without H2's suffix
     * @param poolSize the most connections the pool opens
     */
    static JdbcExecutionStore openFile(Path database, int poolSize) {
        return openUrl(H2Urls.PREALLOCATED_FILE + database + ";FILE_LOCK=FS", poolSize);
    }

    /**
     * As {@link #openFile}, on a URL of the store's file system.
     * @param url {@code jdbc:h2:skail:<path>} and its settings, without the durability settings the store adds
     */
    static JdbcExecutionStore openUrl(String url, int poolSize) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(H2Urls.durable(url));
        dataSource.setMaximumPoolSize(poolSize);
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), dataSource);
        store.initialize();
        return store;
    }
}
