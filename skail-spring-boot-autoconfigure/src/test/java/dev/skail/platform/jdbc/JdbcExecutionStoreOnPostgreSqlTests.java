package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link JdbcExecutionStoreTests} on PostgreSQL, where a new step (fence, step and attempt together), a trigger without
 * tags (insert and notification) and an end (fenced update, parent's wake-up, notifications) are one statement each and
 * everything else takes the general path: each test in a schema of its own. The notifications themselves are
 * exercised by the semantics suite's run on PostgreSQL (results across instances, children waking their parent).
 */
class JdbcExecutionStoreOnPostgreSqlTests extends JdbcExecutionStoreTests {

    private final String schema = "store_" + UUID.randomUUID().toString().replace("-", "");

    private HikariDataSource pool;

    @Override
    JdbcExecutionStore openStore() {
        this.pool = new HikariDataSource();
        this.pool.setJdbcUrl(PostgreSqlForTests.url());
        this.pool.setSchema(this.schema);
        this.pool.setMaximumPoolSize(3);
        JdbcExecutionStore store = new JdbcExecutionStore(this.pool, SqlDialect.POSTGRESQL,
                new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null,
                this.schema, true);
        store.initialize();
        return store;
    }

    @Override
    @AfterEach
    void close() throws Exception {
        this.store.close();
        this.pool.close();
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
        }
    }
}
