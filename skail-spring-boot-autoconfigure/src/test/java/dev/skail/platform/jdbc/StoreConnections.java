package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import dev.skail.platform.ExecutionStore;

/** For tests outside this package: a connection of the JDBC store's own pool, as its statements get one. */
public final class StoreConnections {

    private StoreConnections() {
    }

    /** A connection of {@code store}'s pool ({@code store} must be a {@link JdbcExecutionStore}). */
    public static Connection of(ExecutionStore store) throws SQLException {
        return ((JdbcExecutionStore) store).dataSource().getConnection();
    }
}
