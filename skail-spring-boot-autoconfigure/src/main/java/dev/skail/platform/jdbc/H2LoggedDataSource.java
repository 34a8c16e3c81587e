package dev.skail.platform.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Savepoint;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Logger;

import javax.sql.DataSource;

import org.h2.engine.SessionLocal;
import org.jspecify.annotations.Nullable;

/**
 * The store's data source on H2: its connections commit through the database's {@link H2RedoLog} while one is
 * active (the transaction's record appended, then H2's commit), and tell it of savepoints, rollbacks and closes (so
 * that what was rolled back is not logged). Without an active log they are the pool's connections, unchanged.
 */
final class H2LoggedDataSource implements DataSource {

    private final DataSource delegate;

    private final Supplier<@Nullable H2RedoLog> log;

    private final Guard guard;

    /**
     * What each connection is checked with before it is handed out, while a log is active: that its database is the
     * one the log is active for (one H2 opened again is first given what the log holds).
     */
    @FunctionalInterface
    interface Guard {

        void check(H2RedoLog log, Connection connection) throws SQLException;
    }

    H2LoggedDataSource(DataSource delegate, Supplier<@Nullable H2RedoLog> log, Guard guard) {
        this.delegate = delegate;
        this.log = log;
        this.guard = guard;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(this.delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(this.delegate.getConnection(username, password));
    }

    private Connection wrap(Connection connection) throws SQLException {
        H2RedoLog log = this.log.get();
        if (log != null) {
            try {
                this.guard.check(log, connection);
            }
            catch (SQLException | RuntimeException ex) {
                try {
                    connection.close();
                }
                catch (SQLException closeFailure) {
                    ex.addSuppressed(closeFailure);
                }
                throw ex;
            }
        }
        return (Connection) Proxy.newProxyInstance(H2LoggedDataSource.class.getClassLoader(),
                new Class<?>[] { Connection.class }, new Logged(connection, this.log));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return this.delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        this.delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        this.delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return this.delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return this.delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : this.delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || this.delegate.isWrapperFor(iface);
    }

    private static @Nullable Object invokeOn(Object target, Method method, Object @Nullable [] args) throws Throwable {
        try {
            return method.invoke(target, args);
        }
        catch (InvocationTargetException ex) {
            throw ex.getCause();
        }
    }

    /** Supplies the session of a connection. */
    @FunctionalInterface
    private interface Sessions {

        SessionLocal session() throws SQLException;
    }

    /**
     * A statement of a connection in auto-commit mode: each execution runs in a transaction of its own, committed
     * through the log (H2 would otherwise commit it before the log has it).
     */
    private static final class AutoCommitted implements InvocationHandler {

        private final Object statement;

        private final Connection connection;

        private final Sessions sessions;

        private final Supplier<@Nullable H2RedoLog> log;

        AutoCommitted(Object statement, Connection connection, Sessions sessions, Supplier<@Nullable H2RedoLog> log) {
            this.statement = statement;
            this.connection = connection;
            this.sessions = sessions;
            this.log = log;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
            String name = method.getName();
            H2RedoLog log = this.log.get();
            if (log == null || !name.startsWith("execute") || !this.connection.getAutoCommit()) {
                if ("unwrap".equals(name) && args != null && ((Class<?>) args[0]).isInstance(proxy)) {
                    return proxy;
                }
                if ("equals".equals(name) && args != null && args.length == 1) {
                    return proxy == args[0];
                }
                if ("hashCode".equals(name) && args == null) {
                    return System.identityHashCode(proxy);
                }
                return invokeOn(this.statement, method, args);
            }
            SessionLocal session = this.sessions.session();
            this.connection.setAutoCommit(false);
            try {
                Object result = invokeOn(this.statement, method, args);
                log.commit(session, this.connection);
                return result;
            }
            catch (Throwable ex) {
                try {
                    this.connection.rollback();
                }
                catch (SQLException rollbackFailure) {
                    ex.addSuppressed(rollbackFailure);
                }
                log.discard(session);
                throw ex;
            }
            finally {
                this.connection.setAutoCommit(true);
            }
        }
    }

    /** One connection: commits, rollbacks, savepoints and its close go by the log. */
    private static final class Logged implements InvocationHandler {

        private final Connection connection;

        private final Supplier<@Nullable H2RedoLog> log;

        private @Nullable SessionLocal session;

        /** Where each savepoint set is in what the transaction changed. */
        private final Map<Savepoint, Integer> marks = new IdentityHashMap<>();

        Logged(Connection connection, Supplier<@Nullable H2RedoLog> log) {
            this.connection = connection;
            this.log = log;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
            String name = method.getName();
            int count = (args != null) ? args.length : 0;
            H2RedoLog log = this.log.get();
            if (log != null) {
                switch (name) {
                    case "commit" -> {
                        if (count == 0) {
                            this.marks.clear();
                            log.commit(session(), this.connection);
                            return null;
                        }
                    }
                    case "rollback" -> {
                        if (count == 0) {
                            this.marks.clear();
                            try {
                                this.connection.rollback();
                            }
                            finally {
                                log.discard(session());
                            }
                            return null;
                        }
                        Savepoint savepoint = (Savepoint) args[0];
                        this.connection.rollback(savepoint);
                        Integer mark = this.marks.get(savepoint);
                        log.rolledBackTo(session(), (mark != null) ? mark : 0);
                        return null;
                    }
                    case "setSavepoint" -> {
                        Savepoint savepoint = (count == 0) ? this.connection.setSavepoint()
                                : this.connection.setSavepoint((String) args[0]);
                        this.marks.put(savepoint, log.mark(session()));
                        return savepoint;
                    }
                    case "releaseSavepoint" -> this.marks.remove(args[0]);
                    case "createStatement", "prepareStatement", "prepareCall" -> {
                        Object statement = invokeOn(this.connection, method, args);
                        if (!this.connection.getAutoCommit()) {
                            return statement;
                        }
                        // each statement commits itself: made a transaction that commits through the log
                        return Proxy.newProxyInstance(H2LoggedDataSource.class.getClassLoader(),
                                new Class<?>[] { method.getReturnType() },
                                new AutoCommitted(statement, this.connection, this::session, this.log));
                    }
                    case "setAutoCommit" -> {
                        if (Boolean.TRUE.equals(args[0]) && !this.connection.getAutoCommit()) {
                            // JDBC commits the transaction when auto-commit is turned on: through the log
                            this.marks.clear();
                            log.commit(session(), this.connection);
                        }
                    }
                    case "close" -> {
                        this.marks.clear();
                        try {
                            // what it did and neither committed nor rolled back is rolled back by the pool
                            log.discard(session());
                        }
                        catch (SQLException | RuntimeException ex) {
                            // a broken connection: its session is gone with it
                        }
                    }
                    default -> {
                    }
                }
            }
            else if ("close".equals(name)) {
                this.marks.clear();
            }
            if ("unwrap".equals(name) && count == 1 && ((Class<?>) args[0]).isInstance(proxy)) {
                return proxy;
            }
            if ("equals".equals(name) && count == 1) {
                return proxy == args[0];
            }
            if ("hashCode".equals(name) && count == 0) {
                return System.identityHashCode(proxy);
            }
            if ("toString".equals(name) && count == 0) {
                return "logged " + this.connection;
            }
            return invokeOn(this.connection, method, args);
        }

        private SessionLocal session() throws SQLException {
            SessionLocal session = this.session;
            if (session == null) {
                session = H2RowCapture.session(this.connection);
                if (session == null) {
                    throw new SQLException("The store's log needs an embedded H2 session");
                }
                this.session = session;
            }
            return session;
        }
    }
}
