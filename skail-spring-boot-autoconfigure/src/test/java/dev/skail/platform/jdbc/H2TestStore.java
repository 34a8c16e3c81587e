package dev.skail.platform.jdbc;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;

/** A store on a fresh in-memory H2 database, with its own pool and quick retries, for the store's own tests. */
final class H2TestStore {

    private H2TestStore() {
    }

    /**
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
}
