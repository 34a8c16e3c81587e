package dev.skail.platform.jdbc;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

import javax.sql.DataSource;

import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore.FireOutcome;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoredHistory;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * S11: the store commits a write, then the connection dies before the acknowledgement reaches the runtime, which
 * retries the transaction. The retry must find the write done and succeed, recording nothing twice; a different
 * write at the same place is still refused.
 */
class LostCommitAcknowledgementTests {

    private LostAcknowledgementDataSource dataSource;

    private JdbcExecutionStore store;

    private Lease lease;

    @BeforeEach
    void open() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:lost-ack-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        this.dataSource = new LostAcknowledgementDataSource(h2);
        this.store = new JdbcExecutionStore(this.dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        this.store.initialize();
        this.store.create(execution("t-1", null));
        this.lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of()).get(0);
    }

    @Test
    void recordStepRetriedAfterLostCommitKeepsOneStep() {
        this.dataSource.loseNextCommitAcknowledgement();

        this.store.recordStep(this.lease, command(0, "\"ok\""), attempt(0, 1, "SUCCEEDED", "RECORDED"), 200, 30_000);

        StoredHistory history = history();
        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(history.steps()).containsExactly(command(0, "\"ok\""));
        assertThat(history.attempts()).containsExactly(attempt(0, 1, "SUCCEEDED", "RECORDED"));
    }

    @Test
    void completingAPendingStepRetriedAfterLostCommitKeepsOneCompletedStep() {
        this.store.recordStep(this.lease, delay(0, StepRow.PENDING, 150), null, 150, 30_000);
        this.dataSource.loseNextCommitAcknowledgement();

        this.store.recordStep(this.lease, delay(0, StepRow.COMPLETED, 400), null, 400, 30_000);

        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(history().steps()).containsExactly(delay(0, StepRow.COMPLETED, 400));
    }

    @Test
    void recordAttemptRetriedAfterLostCommitKeepsOneAttempt() {
        this.dataSource.loseNextCommitAcknowledgement();

        this.store.recordAttempt(this.lease, attempt(0, 1, "FAILED", "RETRY"), 200, 30_000);

        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(history().attempts()).containsExactly(attempt(0, 1, "FAILED", "RETRY"));
    }

    @Test
    void startChildRetriedAfterLostCommitKeepsOneChildAndOnePendingStep() {
        StepRow pending = new StepRow("t-1", 0, StepRow.CHILD, "filho", "[1]", StepRow.PENDING, null, null, "key-0", 1,
                200, 200, "t-1-0");
        this.dataSource.loseNextCommitAcknowledgement();

        this.store.startChild(this.lease, pending, execution("t-1-0", "t-1"), 200, 30_000);

        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(history().steps()).containsExactly(pending);
        assertThat(this.store.search(dev.skail.SkailQuery.all().withIdContaining("t-1-0"), 0, 10)).extracting(ExecutionRow::taskId)
            .containsExactly("t-1-0");
        assertThat(this.store.find("t-1-0")).hasValueSatisfying((child) -> {
            assertThat(child.parentTaskId()).isEqualTo("t-1");
            assertThat(child.status()).isEqualTo(ExecutionStatus.PENDING);
        });
    }

    @Test
    void takeEventRetriedAfterLostCommitConsumesOneEventAndReturnsIt() {
        this.store.fire("t-1", "aprovado", "\"first\"", "k-1", 150);
        this.store.fire("t-1", "aprovado", "\"second\"", "k-2", 160);
        this.dataSource.loseNextCommitAcknowledgement();

        Optional<EventRow> taken = this.store.takeEvent(this.lease, "aprovado", (event) -> eventStep(3, event), 200,
                30_000);

        StoredHistory history = history();
        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(taken).map(EventRow::payload).hasValue("\"first\"");
        assertThat(history.events()).extracting(EventRow::payload, EventRow::consumedPosition)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("\"first\"", 3),
                    org.assertj.core.groups.Tuple.tuple("\"second\"", null));
        assertThat(history.steps()).containsExactly(eventStep(3, taken.orElseThrow()));
    }

    @Test
    void takeEventRetriedAfterLostCommitReturnsTheConsumedEventWhenNoOtherIsKept() {
        this.store.fire("t-1", "aprovado", "\"only\"", "k-1", 150);
        this.dataSource.loseNextCommitAcknowledgement();

        Optional<EventRow> taken = this.store.takeEvent(this.lease, "aprovado", (event) -> eventStep(0, event), 200,
                30_000);

        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(taken).map(EventRow::payload).hasValue("\"only\"");
        assertThat(history().events()).extracting(EventRow::consumedPosition).containsExactly(0);
    }

    @Test
    void fireRetriedAfterLostCommitKeepsOneEvent() {
        this.dataSource.loseNextCommitAcknowledgement();

        FireOutcome outcome = this.store.fire("t-1", "aprovado", "\"yes\"", "k-1", 150);

        assertThat(this.dataSource.lostAcknowledgements()).isEqualTo(1);
        assertThat(outcome).isEqualTo(FireOutcome.FIRED);
        assertThat(history().events()).extracting(EventRow::payload).containsExactly("\"yes\"");
    }

    @Test
    void aDifferentStepAtARecordedPositionIsStillRefused() {
        this.store.recordStep(this.lease, command(0, "\"ok\""), null, 200, 30_000);

        assertThatExceptionOfType(StoreStatementException.class)
            .isThrownBy(() -> this.store.recordStep(this.lease, command(0, "\"other\""), null, 300, 30_000))
            .withMessageContaining("position 0")
            .withMessageContaining("result");
        assertThat(history().steps()).containsExactly(command(0, "\"ok\""));
    }

    @Test
    void aDifferentAttemptWithARecordedNumberIsStillRefused() {
        this.store.recordAttempt(this.lease, attempt(0, 1, "FAILED", "RETRY"), 200, 30_000);

        assertThatExceptionOfType(StoreStatementException.class)
            .isThrownBy(() -> this.store.recordStep(this.lease, command(0, "\"ok\""),
                    attempt(0, 1, "SUCCEEDED", "RECORDED"), 300, 30_000))
            .withMessageContaining("attempt 1");
        StoredHistory history = history();
        assertThat(history.steps()).isEmpty();
        assertThat(history.attempts()).containsExactly(attempt(0, 1, "FAILED", "RETRY"));
    }

    @Test
    void aChildIdTakenByAnotherExecutionIsStillRefused() {
        this.store.create(execution("t-1-0", null));
        StepRow pending = new StepRow("t-1", 0, StepRow.CHILD, "filho", "[1]", StepRow.PENDING, null, null, "key-0", 1,
                200, 200, "t-1-0");

        assertThatExceptionOfType(StoreStatementException.class)
            .isThrownBy(() -> this.store.startChild(this.lease, pending, execution("t-1-0", "t-1"), 200, 30_000))
            .withMessageContaining("t-1-0");
        assertThat(history().steps()).isEmpty();
    }

    private StoredHistory history() {
        return this.store.history("t-1").orElseThrow();
    }

    private static ExecutionRow execution(String taskId, String parentTaskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[\"x\"]", ExecutionStatus.PENDING, null,
                null, 1, 0, 0L, 0, 0, parentTaskId);
    }

    private static StepRow command(int position, String result) {
        return new StepRow("t-1", position, StepRow.COMMAND, "reservarEstoque", "[]", StepRow.COMPLETED, result, null,
                "key-" + position, 1, 150, 160, null);
    }

    private static StepRow delay(int position, String status, long at) {
        return new StepRow("t-1", position, StepRow.DELAY, "delay", "[250]", status, "400", null, "key-" + position, 1,
                150, at, null);
    }

    private static StepRow eventStep(int position, EventRow event) {
        return new StepRow("t-1", position, StepRow.EVENT, "aprovado", "[]", StepRow.COMPLETED,
                "{\"eventId\":" + event.id() + ",\"payload\":" + event.payload() + "}", null, "key-" + position, 1, 200,
                200, null);
    }

    private static AttemptRow attempt(int position, int number, String outcome, String decision) {
        return new AttemptRow("t-1", position, "reservarEstoque", 1, number, 150, 160, outcome, null, decision,
                "RETRY".equals(decision) ? 1_000L : null);
    }

    /**
     * A data source whose next commit, when armed, reaches the database and then loses its acknowledgement: the
     * connection dies (SQLState 08006) after the transaction is durable, as when the network drops at that moment.
     */
    static final class LostAcknowledgementDataSource implements DataSource {

        private final DataSource target;

        private final AtomicBoolean armed = new AtomicBoolean();

        private final AtomicInteger lost = new AtomicInteger();

        LostAcknowledgementDataSource(DataSource target) {
            this.target = target;
        }

        void loseNextCommitAcknowledgement() {
            this.armed.set(true);
        }

        int lostAcknowledgements() {
            return this.lost.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = this.target.getConnection();
            InvocationHandler handler = (proxy, method, args) -> invoke(connection, method, args);
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] { Connection.class }, handler);
        }

        private Object invoke(Connection connection, Method method, Object[] args) throws Throwable {
            Object result;
            try {
                result = method.invoke(connection, args);
            }
            catch (InvocationTargetException ex) {
                throw ex.getCause();
            }
            if ("commit".equals(method.getName()) && this.armed.compareAndSet(true, false)) {
                this.lost.incrementAndGet();
                throw new SQLNonTransientConnectionException("connection reset after commit", "08006");
            }
            return result;
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {
        }

        @Override
        public void setLoginTimeout(int seconds) {
        }

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
