package dev.skail.platform.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A waited step that ends (here a child) completes its PENDING row without a statement that fails: on H2 a failed
 * statement empties the session's cache of parsed statements, so every statement after it on that connection was
 * parsed again (the wake-ups of benchmark D spent 8–10 % of their CPU so).
 */
class WaitedStepCompletionTests {

    private final HikariDataSource pool = new HikariDataSource();

    private final List<String> failed = new CopyOnWriteArrayList<>();

    private JdbcExecutionStore store;

    @AfterEach
    void close() throws Exception {
        this.store.close();
        this.pool.close();
    }

    @Test
    void completingAPendingChildStepRunsNoStatementThatFails() {
        this.pool.setJdbcUrl("jdbc:h2:mem:waited-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        DataSource counted = new FailureCountingDataSource(this.pool, this.failed);
        this.store = new JdbcExecutionStore(counted, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), this.pool);
        this.store.initialize();
        this.store.create(new ExecutionRow("t-1", "vendas", "v1", "processarPedido", "[\"x\"]",
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, java.util.Set.of()).get(0);
        StepRow pending = new StepRow("t-1", 0, StepRow.CHILD, "cobrarCartao", "[{\"valor\":1234.50}]",
                StepRow.PENDING, null, null, "key-0", 1, 200, 200, "t-1-0");
        this.store.startChild(lease, pending, new ExecutionRow("t-1-0", "vendas", "v1", "cobrarCartao",
                "[{\"valor\":1234.50}]", ExecutionStatus.PENDING, null, null, 1, 0, 200L, 200, 200, "t-1"), List.of(),
                200, 30_000);
        StepRow completed = new StepRow("t-1", 0, StepRow.CHILD, "cobrarCartao", "[{\"valor\":1234.50}]",
                StepRow.COMPLETED, "{\"autorizacao\":\"a-1\",\"valor\":1234.50}", null, "key-0", 1, 200, 900,
                "t-1-0");
        this.failed.clear();

        this.store.recordStep(lease, completed, null, 900, 30_000);

        assertThat(this.store.history("t-1").orElseThrow().steps()).containsExactly(completed);
        assertThat(this.failed).isEmpty();
    }

    /** Connections whose prepared statements note each statement that fails. */
    static final class FailureCountingDataSource extends DelegatingDataSource {

        private final List<String> failed;

        FailureCountingDataSource(DataSource target, List<String> failed) {
            super(target);
            this.failed = failed;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = obtainTargetDataSource().getConnection();
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] { Connection.class }, (proxy, method, args) -> {
                        Object result = invoke(connection, method, args);
                        if (result instanceof PreparedStatement statement && args != null
                                && args[0] instanceof String sql) {
                            return counting(statement, sql);
                        }
                        return result;
                    });
        }

        private PreparedStatement counting(PreparedStatement statement, String sql) {
            return (PreparedStatement) Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
                    new Class<?>[] { PreparedStatement.class }, (proxy, method, args) -> {
                        try {
                            return invoke(statement, method, args);
                        }
                        catch (SQLException ex) {
                            this.failed.add(ex.getSQLState() + " " + sql);
                            throw ex;
                        }
                    });
        }

        private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args)
                throws Throwable {
            try {
                return method.invoke(target, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
        }
    }
}
