package dev.skail.platform.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import dev.skail.platform.StoreDeadline;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One batch of a group commit, its works written on one connection: what one work does wrong, what the leader's own
 * deadline is, and what a failed commit is, for each caller.
 */
class GroupCommitBatchTests {

    private final ExecutorService callers = Executors.newFixedThreadPool(6);

    private final AtomicBoolean failNextCommit = new AtomicBoolean();

    private DataSource dataSource;

    private GroupCommit group;

    private Connection keepAlive;

    @BeforeEach
    void open() throws SQLException {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:group-" + UUID.randomUUID());
        this.keepAlive = h2.getConnection();
        try (Statement statement = this.keepAlive.createStatement()) {
            statement.execute("CREATE TABLE pagamento (pedido VARCHAR(40) PRIMARY KEY, valor NUMERIC(19, 2))");
        }
        this.dataSource = new org.springframework.jdbc.datasource.AbstractDataSource() {

            @Override
            public Connection getConnection() throws SQLException {
                return failingCommits(h2.getConnection());
            }

            @Override
            public Connection getConnection(String username, String password) throws SQLException {
                return getConnection();
            }
        };
        this.group = new GroupCommit(this.dataSource, JdbcCustomization.of(SqlDialect.H2), 64);
    }

    @AfterEach
    void close() throws SQLException {
        this.callers.shutdownNow();
        this.keepAlive.close();
    }

    @Test
    void aWorkThatThrowsAnErrorFailsAloneAndTheOthersOfItsBatchAreCommitted() throws Exception {
        List<Future<String>> results = behindABatchInProgress(List.of(insert("pedido-1", "150.00"),
                (connection) -> {
                    throw new AssertionError("a defect in the work");
                }, insert("pedido-3", "12.30")), false);

        assertThat(results.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-1");
        assertThat(results.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-3");
        assertThat(failureOf(results.get(1))).isInstanceOf(AssertionError.class).hasMessage("a defect in the work");
        assertThat(amount("pedido-1")).isEqualByComparingTo("150.00");
        assertThat(amount("pedido-3")).isEqualTo(new BigDecimal("12.30"));
        // the first batch alone, then the three in one transaction (two of them committed)
        assertThat(this.group.counts()).containsExactly(3, 2);
    }

    @Test
    void aFailedStatementIsRolledBackToItsSavepointAndTheOthersKeepTheirRows() throws Exception {
        List<Future<String>> results = behindABatchInProgress(List.of(insert("pedido-1", "150.00"),
                insert("pedido-1", "99.90"), insert("pedido-3", "12.30")), false);

        // the two inserts of pedido-1 are queued in either order: the second one written is refused, alone
        List<String> amounts = List.of("150.00", "99.90");
        int refused = -1;
        for (int i = 0; i < 2; i++) {
            try {
                assertThat(results.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-1");
            }
            catch (ExecutionException ex) {
                assertThat(refused).as("only one of them is refused").isEqualTo(-1);
                refused = i;
                Throwable failure = failureOf(results.get(i));
                assertThat(failure).isInstanceOf(SQLException.class);
                assertThat(((SQLException) failure).getSQLState()).isEqualTo("23505");
            }
        }
        assertThat(refused).as("one of them is refused").isNotEqualTo(-1);
        assertThat(results.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-3");
        assertThat(amount("pedido-1")).isEqualByComparingTo(amounts.get(1 - refused));
        assertThat(amount("pedido-3")).isEqualByComparingTo("12.30");
        // the first batch alone, then the three in one transaction (two of them committed)
        assertThat(this.group.counts()).containsExactly(3, 2);
    }

    @Test
    void whenTheTransactionIsLostEachWorkRunsAgainAloneAndItsCallerIsToldThatOutcome() throws Exception {
        java.util.concurrent.atomic.AtomicInteger firstCalls = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger secondCalls = new java.util.concurrent.atomic.AtomicInteger();
        // the first fails in the batch (rolled back to its savepoint), the second loses the whole transaction (H2
        // rolls a deadlocked transaction back whole); alone, both succeed
        List<Future<String>> results = behindABatchInProgress(List.of((connection) -> {
            if (firstCalls.incrementAndGet() == 1) {
                throw new IllegalStateException("busy the first time");
            }
            return insertRow(connection, "pedido-1", "150.00");
        }, (connection) -> {
            if (secondCalls.incrementAndGet() == 1) {
                throw new SQLException("Deadlock detected", "40001");
            }
            return insertRow(connection, "pedido-2", "99.90");
        }, insert("pedido-3", "12.30")), false);

        assertThat(results.get(0).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-1");
        assertThat(results.get(1).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-2");
        assertThat(results.get(2).get(10, TimeUnit.SECONDS)).isEqualTo("pedido-3");
        assertThat(amount("pedido-1")).isEqualByComparingTo("150.00");
        assertThat(amount("pedido-2")).isEqualByComparingTo("99.90");
        assertThat(amount("pedido-3")).isEqualByComparingTo("12.30");
        assertThat(firstCalls.get() + secondCalls.get()).isEqualTo(4);
        // the first batch, then each of the three alone
        assertThat(this.group.counts()).containsExactly(4, 4);
    }

    @Test
    void callersThatGiveUpWhileQueuedLeaveTheQueueAndThoseAfterThemAreWritten() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Future<String> first = batchInProgress("primeiro", "1.00", release);
        // a request whose deadline passes while it is queued, a caller interrupted while it is queued, and one that
        // waits as long as it takes, queued behind both
        Future<String> request = this.callers.submit(
                () -> StoreDeadline.within(Duration.ofMillis(300), () -> run(insert("pedido-1", "150.00"))));
        DurableCommitTests.spinUntil(() -> this.group.queued() >= 1, "the request queued");
        java.util.concurrent.atomic.AtomicReference<Throwable> interruptedFailure = new java.util.concurrent.atomic.AtomicReference<>();
        AtomicBoolean flagKept = new AtomicBoolean();
        Thread interrupted = new Thread(() -> {
            try {
                this.group.run(insert("pedido-2", "99.90"));
            }
            catch (SQLException | RuntimeException ex) {
                interruptedFailure.set(ex);
                flagKept.set(Thread.currentThread().isInterrupted());
            }
        });
        interrupted.start();
        DurableCommitTests.spinUntil(() -> this.group.queued() >= 2, "the second caller queued");
        Future<String> patient = this.callers.submit(() -> run(insert("pedido-3", "12.30")));
        DurableCommitTests.spinUntil(() -> this.group.queued() >= 3, "the third caller queued");

        Throwable late = failureOf(request);
        interrupted.interrupt();
        interrupted.join(10_000);
        assertThat(this.group.queued()).isEqualTo(1);
        release.countDown();

        // the interrupted caller is told so, keeps its interrupt, and its write was not made
        assertThat(interruptedFailure.get()).isInstanceOf(SQLException.class)
            .hasMessageContaining("Interrupted while waiting to write")
            .hasCauseInstanceOf(InterruptedException.class);
        assertThat(((SQLException) interruptedFailure.get()).getSQLState()).isEqualTo("08000");
        assertThat(flagKept).isTrue();

        assertThat(late).isInstanceOf(java.sql.SQLTransientConnectionException.class)
            .hasMessageContaining("no time left");
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("primeiro");
        // the last one queued leads the next batch once the first ends, though the two before it left
        assertThat(patient.get(10, TimeUnit.SECONDS)).isEqualTo("pedido-3");
        assertThat(amountOrNull("pedido-1")).isNull();
        assertThat(amountOrNull("pedido-2")).isNull();
        assertThat(amount("pedido-3")).isEqualByComparingTo("12.30");
        assertThat(this.group.counts()).containsExactly(2, 2);
    }

    @Test
    void theBatchIsWrittenWithoutTheDeadlineOfTheCallerThatLeadsIt() throws Exception {
        List<Boolean> deadlineSeen = java.util.Collections.synchronizedList(new ArrayList<>());
        JdbcExecutionStore.SqlWork<String> recording = (connection) -> {
            deadlineSeen.add(StoreDeadline.isSet());
            return "visto";
        };
        // every caller is a request: whichever leads the batch, the others' works are not written under its deadline
        List<Future<String>> results = behindABatchInProgress(List.of(recording, recording, recording), true);

        for (Future<String> result : results) {
            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("visto");
        }
        assertThat(deadlineSeen).containsExactly(false, false, false);
    }

    @Test
    void aCommitThatFailsIsEveryCallersFailureToReachTheStoreNotARefusedStatement() throws Exception {
        this.failNextCommit.set(true);
        CountDownLatch release = new CountDownLatch(1);
        // the first batch (alone) is the one whose commit fails: a value too long for its column, say (22001)
        Future<String> first = batchInProgress("pedido-1", "150.00", release);
        release.countDown();
        Throwable failure = failureOf(first);
        assertThat(failure).isInstanceOf(SQLException.class);
        assertThat(((SQLException) failure).getSQLState()).isEqualTo("08000");
        assertThat(SqlDialect.H2.isStatementError((SQLException) failure)).isFalse();
        assertThat(amountOrNull("pedido-1")).isNull();
        // the caller's retry writes it
        String retried = this.group.run((connection) -> insertRow(connection, "pedido-1", "150.00"));
        assertThat(retried).isEqualTo("pedido-1");
        assertThat(amount("pedido-1")).isEqualByComparingTo("150.00");
    }

    @Test
    void whenManyWaitTheNextBatchIsWrittenDuringTheSyncAndNobodyIsToldBeforeItsOwnSync() throws Exception {
        java.util.concurrent.Semaphore syncs = new java.util.concurrent.Semaphore(0);
        java.util.concurrent.atomic.AtomicInteger syncsEntered = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger failTheSync = new java.util.concurrent.atomic.AtomicInteger(2);
        JdbcCustomization heldSyncs = new JdbcCustomization() {

            @Override
            List<dev.skail.platform.Lease> claimDue(Connection connection, Claim claim) {
                throw new UnsupportedOperationException();
            }

            @Override
            void committed(Connection connection) throws SQLException {
                int sync = syncsEntered.incrementAndGet();
                syncs.acquireUninterruptibly();
                if (sync == failTheSync.get()) {
                    throw new SQLException("IO Exception: fsync failed", "HY000");
                }
            }
        };
        this.group = new GroupCommit(this.dataSource, heldSyncs, 10);
        ExecutorService writers = Executors.newFixedThreadPool(21);
        try {
            Future<String> first = writers.submit(() -> this.group.run(insert("pedido-0", "1.00")));
            awaitCount(syncsEntered, 1);
            List<Future<String>> waiting = new ArrayList<>();
            for (int i = 1; i <= 20; i++) {
                String pedido = "pedido-" + i;
                waiting.add(writers.submit(() -> this.group.run(insert(pedido, "150.00"))));
            }
            DurableCommitTests.spinUntil(() -> this.group.queued() >= 20, "the writes queued");
            syncs.release();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("pedido-0");

            // the first ten committed with ten more waiting: the next ten were committed while its sync is held
            awaitCount(syncsEntered, 3);
            for (int i = 1; i <= 20; i++) {
                assertThat(amountOrNull("pedido-" + i)).as("pedido-" + i + " committed").isNotNull();
            }
            // yet nobody was told before its own batch's sync
            assertThat(waiting).noneMatch(Future::isDone);

            syncs.release(2);
            int told = 0;
            int failed = 0;
            for (Future<String> write : waiting) {
                try {
                    write.get(10, TimeUnit.SECONDS);
                    told++;
                }
                catch (ExecutionException ex) {
                    // the batch whose sync failed: each of its callers is told it could not reach the store
                    assertThat(ex.getCause()).isInstanceOf(SQLException.class);
                    assertThat(((SQLException) ex.getCause()).getSQLState()).isEqualTo("08000");
                    failed++;
                }
            }
            assertThat(told).isEqualTo(10);
            assertThat(failed).isEqualTo(10);
        }
        finally {
            syncs.release(10);
            writers.shutdownNow();
        }
    }

    private static void awaitCount(java.util.concurrent.atomic.AtomicInteger count, int expected) {
        DurableCommitTests.spinUntil(() -> count.get() >= expected, "count " + expected);
    }

    /**
     * Runs the works from callers of their own queued, in the order given, behind a first batch still in progress, so
     * that they are written in one batch; {@code requests} gives each of them a deadline.
     */
    private List<Future<String>> behindABatchInProgress(List<JdbcExecutionStore.SqlWork<String>> works,
            boolean requests) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Future<String> first = batchInProgress("primeiro", "1.00", release);
        List<Future<String>> results = new ArrayList<>();
        for (JdbcExecutionStore.SqlWork<String> work : works) {
            int queued = results.size() + 1;
            results.add(this.callers.submit(() -> requests
                    ? StoreDeadline.within(Duration.ofSeconds(10), () -> run(work)) : run(work)));
            // one at a time, so that they are queued (and written) in the order given
            DurableCommitTests.spinUntil(() -> this.group.queued() >= queued,
                    "work " + queued + " queued behind the first batch");
        }
        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("primeiro");
        return results;
    }

    /** A batch of one insert, being written until {@code release}: the next callers queue behind it. */
    private Future<String> batchInProgress(String pedido, String valor, CountDownLatch release) throws Exception {
        CountDownLatch inProgress = new CountDownLatch(1);
        Future<String> first = this.callers.submit(() -> this.group.run((connection) -> {
            inProgress.countDown();
            await(release);
            return insertRow(connection, pedido, valor);
        }));
        assertThat(inProgress.await(10, TimeUnit.SECONDS)).isTrue();
        return first;
    }

    private static void await(CountDownLatch latch) throws SQLException {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new SQLException(ex);
        }
    }

    private String run(JdbcExecutionStore.SqlWork<String> work) {
        try {
            return this.group.run(work);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static JdbcExecutionStore.SqlWork<String> insert(String pedido, String valor) {
        return (connection) -> insertRow(connection, pedido, valor);
    }

    private static String insertRow(Connection connection, String pedido, String valor) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO pagamento VALUES (?, ?)")) {
            ps.setString(1, pedido);
            ps.setBigDecimal(2, new BigDecimal(valor));
            ps.executeUpdate();
        }
        return pedido;
    }

    private BigDecimal amount(String pedido) throws SQLException {
        BigDecimal amount = amountOrNull(pedido);
        assertThat(amount).as(pedido).isNotNull();
        return amount;
    }

    private BigDecimal amountOrNull(String pedido) throws SQLException {
        try (PreparedStatement ps = this.keepAlive.prepareStatement("SELECT valor FROM pagamento WHERE pedido = ?")) {
            ps.setString(1, pedido);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getBigDecimal(1) : null;
            }
        }
    }

    private static Throwable failureOf(Future<String> result) throws InterruptedException {
        try {
            result.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got a result");
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause();
            return (cause instanceof IllegalStateException wrapped && wrapped.getCause() != null) ? wrapped.getCause()
                    : cause;
        }
        catch (java.util.concurrent.TimeoutException ex) {
            throw new AssertionError(ex);
        }
    }

    private Connection failingCommits(Connection connection) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
                (proxy, method, args) -> {
                    if (method.getName().equals("commit") && this.failNextCommit.compareAndSet(true, false)) {
                        connection.rollback();
                        throw new SQLException("Value too long for column", "22001");
                    }
                    try {
                        return method.invoke(connection, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
    }
}
