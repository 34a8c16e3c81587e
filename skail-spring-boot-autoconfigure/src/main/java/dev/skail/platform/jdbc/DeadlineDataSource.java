package dev.skail.platform.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.util.logging.Logger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import dev.skail.platform.StoreDeadline;

/**
 * The store's pool, seen through the current thread's {@link StoreDeadline}: a request waits for a connection no
 * longer than its deadline allows (not the pool's whole connection timeout), and a statement on it waits for the
 * network no longer either. Without a deadline (the worker), connections are taken as the pool gives them.
 */
public final class DeadlineDataSource implements DataSource {

    private final HikariDataSource pool;

    public DeadlineDataSource(HikariDataSource pool) {
        this.pool = pool;
    }

    /** Whether the driver takes a network timeout (PostgreSQL does; H2, in the process, does not). */
    private volatile boolean networkTimeouts = true;

    @Override
    public Connection getConnection() throws SQLException {
        long remaining = StoreDeadline.remainingMillis();
        if (remaining < 0) {
            return this.pool.getConnection();
        }
        if (remaining == 0) {
            throw new SQLTransientConnectionException("no time left to reach the store", "08001");
        }
        HikariPool hikari = (this.pool.getHikariPoolMXBean() instanceof HikariPool started) ? started : null;
        Connection connection = (hikari != null) ? hikari.getConnection(remaining) : this.pool.getConnection();
        if (this.networkTimeouts) {
            try {
                // a statement waits no longer than the request for an answer from the network (PostgreSQL; the pool
                // sets the connection's own timeout back when it is returned)
                connection.setNetworkTimeout(Runnable::run, (int) Math.max(1, remaining));
            }
            catch (SQLException | RuntimeException ex) {
                // not supported by this driver (H2 is in the same process: no network): not asked again
                this.networkTimeouts = false;
            }
        }
        return connection;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return this.pool.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        this.pool.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        this.pool.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return this.pool.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return this.pool.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        return type.isInstance(this) ? type.cast(this) : this.pool.unwrap(type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) throws SQLException {
        return type.isInstance(this) || this.pool.isWrapperFor(type);
    }
}
