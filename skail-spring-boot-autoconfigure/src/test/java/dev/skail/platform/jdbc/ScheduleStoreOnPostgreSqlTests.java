package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * {@link ScheduleStoreTests} on PostgreSQL, each test in a schema of its own: instances are pools of their own on the
 * one database, as separate processes would be.
 */
class ScheduleStoreOnPostgreSqlTests extends ScheduleStoreTests {

    private final String schema = "schedules_" + UUID.randomUUID().toString().replace("-", "");

    @BeforeEach
    void createSchema() throws Exception {
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + this.schema);
        }
    }

    @AfterEach
    void dropSchema() throws Exception {
        closePools();
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
        }
    }

    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }

    @Override
    String url() {
        return PostgreSqlForTests.url();
    }

    @Override
    void configure(HikariDataSource pool) {
        pool.setSchema(this.schema);
    }
}
