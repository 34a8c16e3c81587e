package dev.skail.runtime;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreRetry;

/**
 * The real JDBC stores the engine's scenarios also run on: a fresh in-memory H2 database, or a fresh schema of the
 * tests' PostgreSQL, each a store with a small pool and quick retries; {@link #close()} closes them all.
 */
final class JdbcStores implements AutoCloseable {

    private final List<HikariDataSource> pools = new ArrayList<>();

    private final List<JdbcExecutionStore> stores = new ArrayList<>();

    JdbcExecutionStore h2() {
        HikariDataSource pool = pool("jdbc:h2:mem:engine-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", null);
        return store(pool, SqlDialect.H2);
    }

    JdbcExecutionStore postgreSql() {
        String url = PostgreSqlForTests.url();
        String schema = "engine_" + UUID.randomUUID().toString().replace("-", "");
        try (HikariDataSource admin = new HikariDataSource()) {
            admin.setJdbcUrl(url);
            admin.setMaximumPoolSize(1);
            try (Connection connection = admin.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE SCHEMA " + schema);
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
        return store(pool(url, schema), SqlDialect.POSTGRESQL);
    }

    private HikariDataSource pool(String url, String schema) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        if (schema != null) {
            pool.setSchema(schema);
        }
        pool.setMaximumPoolSize(3);
        this.pools.add(pool);
        return pool;
    }

    private JdbcExecutionStore store(HikariDataSource pool, SqlDialect dialect) {
        JdbcExecutionStore store = new JdbcExecutionStore(pool, dialect,
                new StoreRetry(dialect, 3, Duration.ofMillis(1), Duration.ofMillis(5)), pool);
        this.stores.add(store);
        store.initialize();
        return store;
    }

    @Override
    public void close() {
        // the stores first: their threads (listeners, the announcer of ends) stop before their pools close
        for (JdbcExecutionStore store : this.stores) {
            try {
                store.close();
            }
            catch (Exception ex) {
                // its pool is closed below all the same
            }
        }
        this.stores.clear();
        this.pools.forEach(HikariDataSource::close);
        this.pools.clear();
    }
}
