package dev.skail.runtime;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreRetry;
import org.junit.jupiter.api.AfterEach;

/**
 * {@link CancellationTests} on the JDBC store on PostgreSQL, each test in a schema of its own. The PostgreSQL is the one
 * {@code bin/test-postgres} starts; its URL comes in the system property {@code skail.test.postgres-url}, which the
 * build sets (the test command installs and starts PostgreSQL, it does not skip these tests).
 */
class CancellationOnPostgreSqlTests extends CancellationTests {

    private final List<HikariDataSource> dataSources = new ArrayList<>();

    @Override
    ExecutionStore newStore() {
        String url = PostgreSqlForTests.url();
        String schema = "engine_" + UUID.randomUUID().toString().replace("-", "");
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(url);
        dataSource.setMaximumPoolSize(3);
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        catch (java.sql.SQLException ex) {
            throw new IllegalStateException(ex);
        }
        dataSource.close();
        HikariDataSource scoped = new HikariDataSource();
        scoped.setJdbcUrl(url);
        scoped.setSchema(schema);
        scoped.setMaximumPoolSize(3);
        this.dataSources.add(scoped);
        JdbcExecutionStore store = new JdbcExecutionStore(scoped, SqlDialect.POSTGRESQL,
                new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), scoped);
        store.initialize();
        return store;
    }

    @AfterEach
    void closeStores() {
        this.dataSources.forEach(HikariDataSource::close);
    }
}
