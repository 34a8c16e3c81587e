package dev.skail.sample;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** A fresh database on the tests' PostgreSQL ({@code bin/test-postgres}, its URL in SKAIL_TEST_POSTGRES_URL). */
final class TestPostgres {

    private TestPostgres() {
    }

    /** The JDBC URL of a new, empty database. */
    static String newDatabase(String prefix) throws SQLException {
        String url = System.getProperty("skail.test.postgres-url", System.getenv("SKAIL_TEST_POSTGRES_URL"));
        if (url == null || url.isBlank()) {
            throw new IllegalStateException("No PostgreSQL for the tests: run them with ./bin/test, which starts one "
                    + "(bin/test-postgres), or set SKAIL_TEST_POSTGRES_URL");
        }
        String database = prefix + "_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + database);
        }
        int slash = url.lastIndexOf('/');
        int query = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + database + ((query >= 0) ? url.substring(query) : "");
    }
}
