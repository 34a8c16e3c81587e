package dev.skail.platform.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.Suspend;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.skail.autoconfigure.SkailAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The embedded store tells no one a write is recorded before it would survive a power loss: each acknowledged commit
 * is followed by a sync of the H2 file to the device ({@code CHECKPOINT SYNC}), one sync serving every commit that
 * waited for it.
 */
class DurableCommitTests {

    @TempDir
    Path directory;

    private final SyncWatchingDataSource dataSource = new SyncWatchingDataSource();

    private JdbcExecutionStore store;

    @AfterEach
    void close() throws Exception {
        this.dataSource.release();
        if (this.store != null) {
            this.store.close();
        }
    }

    @Test
    void aTriggerIsNotAcknowledgedBeforeItsCommitIsSyncedToDisk() throws Exception {
        open();
        this.dataSource.holdSyncs();

        CompletableFuture<Boolean> created = CompletableFuture
            .supplyAsync(() -> this.store.create(execution("pedido-1")).isEmpty());
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // the row is committed (another connection reads it) but the caller is still waiting for the sync
        assertThat(this.store.find("pedido-1")).isPresent();
        assertThat(created).isNotDone();
        this.dataSource.release();
        assertThat(created.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aRecordedStepIsNotAcknowledgedBeforeItsCommitIsSyncedToDisk() throws Exception {
        open();
        this.store.create(execution("pedido-1"));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of()).get(0);
        this.dataSource.holdSyncs();

        CompletableFuture<Void> recorded = CompletableFuture.runAsync(
                () -> this.store.recordStep(lease, command("pedido-1", 0), null, 200, 30_000));
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(recorded).isNotDone();
        this.dataSource.release();
        recorded.get(10, TimeUnit.SECONDS);
        assertThat(this.store.history("pedido-1").orElseThrow().steps()).hasSize(1);
    }

    @Test
    void oneWriterSyncsEachOfItsCommits() {
        open();
        long before = this.store.syncs().orElseThrow().commits();

        for (int i = 0; i < 20; i++) {
            this.store.create(execution("pedido-" + i));
        }

        JdbcExecutionStore.Syncs syncs = this.store.syncs().orElseThrow();
        assertThat(syncs.commits() - before).isEqualTo(20);
        assertThat(syncs.syncs()).isEqualTo(syncs.commits());
        assertThat(syncs.writes()).isEqualTo(syncs.commits());
    }

    @Test
    void aDelayGoesToSleepWithItsSuspensionInOneSyncedCommitAndIsFoundDueWithTheNextStepInOne() {
        open();
        this.store.create(execution("pedido-1"));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of()).get(0);
        this.store.recordStep(lease, command("pedido-1", 0), null, 200, 30_000);
        JdbcExecutionStore.Syncs before = this.store.syncs().orElseThrow();
        StepRow pending = new StepRow("pedido-1", 1, StepRow.DELAY, "delay", "[3600000]", StepRow.PENDING,
                "3600200", null, "key-1", 1, 200, 200, null);

        this.store.suspend(lease, List.of(pending), new Suspend(ExecutionStatus.WAITING, 3_600_200L, Set.of(),
                Set.of()), 200, 200);

        JdbcExecutionStore.Syncs asleep = this.store.syncs().orElseThrow();
        assertThat(asleep.writes() - before.writes()).isEqualTo(1);
        assertThat(asleep.commits() - before.commits()).isEqualTo(1);
        assertThat(asleep.syncs() - before.syncs()).isEqualTo(1);
        ExecutionRow waiting = this.store.find("pedido-1").orElseThrow();
        assertThat(waiting.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(waiting.nextRunAt()).isEqualTo(3_600_200L);
        assertThat(this.store.history("pedido-1").orElseThrow().steps()).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.PENDING));

        Lease woken = this.store.claimDue("vendas", "v1", "a", 10, 3_600_300, 3_630_300, Set.of()).get(0);
        StepRow due = new StepRow("pedido-1", 1, StepRow.DELAY, "delay", "[3600000]", StepRow.COMPLETED, "3600200",
                null, "key-1", 1, 200, 3_600_300, null);
        JdbcExecutionStore.Syncs beforeWake = this.store.syncs().orElseThrow();
        this.store.recordSteps(woken, List.of(due, command("pedido-1", 2)), null, 3_600_300, 3_630_300);

        JdbcExecutionStore.Syncs awake = this.store.syncs().orElseThrow();
        assertThat(awake.writes() - beforeWake.writes()).isEqualTo(1);
        assertThat(awake.commits() - beforeWake.commits()).isEqualTo(1);
        assertThat(awake.syncs() - beforeWake.syncs()).isEqualTo(1);
        assertThat(this.store.history("pedido-1").orElseThrow().steps()).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.COMPLETED),
                    tuple(StepRow.COMMAND, StepRow.COMPLETED));
    }

    @Test
    void writesThatWaitTogetherShareOneCommitAndOneSync() throws Exception {
        open();
        this.dataSource.holdSyncs();
        // the first trigger's sync is held: the 15 that come meanwhile wait for it, then share one commit and one sync
        ExecutorService writers = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> writes = new ArrayList<>();
            writes.add(writers.submit(() -> this.store.create(execution("pedido-0"))));
            assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();
            for (int i = 1; i < 16; i++) {
                String id = "pedido-" + i;
                writes.add(writers.submit(() -> this.store.create(execution(id))));
            }
            awaitQueued(15);
            // none of them is written before the first one's sync ends
            assertThat(this.store.find("pedido-15")).isEmpty();
            this.dataSource.release();
            for (Future<?> write : writes) {
                write.get(10, TimeUnit.SECONDS);
            }
        }
        finally {
            writers.shutdownNow();
        }

        for (int i = 0; i < 16; i++) {
            assertThat(this.store.find("pedido-" + i)).isPresent();
        }
        JdbcExecutionStore.Syncs syncs = this.store.syncs().orElseThrow();
        assertThat(syncs.writes()).isEqualTo(16);
        assertThat(syncs.commits()).isEqualTo(2);
        assertThat(syncs.syncs()).isEqualTo(2);
    }

    @Test
    void aRequestWithADeadlineDoesNotWaitForeverBehindASyncThatHangs() throws Exception {
        open();
        this.dataSource.holdSyncs();
        CompletableFuture<?> first = CompletableFuture.runAsync(() -> this.store.create(execution("pedido-0")));
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // an HTTP trigger, say: its deadline passes while the disk hangs, and it is told the store is unavailable
        assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(() -> dev.skail.platform.StoreDeadline
            .within(Duration.ofMillis(300), () -> this.store.create(execution("pedido-1"))));
        assertThat(first).isNotDone();

        this.dataSource.release();
        first.get(10, TimeUnit.SECONDS);
        // it gave up while it waited for its turn to write: nothing of it is written, and the caller's retry writes it
        assertThat(this.store.find("pedido-1")).isEmpty();
        assertThat(this.store.create(execution("pedido-1"))).isEmpty();
        assertThat(this.store.find("pedido-1")).isPresent();
    }

    @Test
    void aGroupCommitsWaitForItsSyncOutlastsAnInterruptAndKeepsIt() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:interrupt-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        this.dataSource.target = h2;
        this.dataSource.holdSyncs();
        H2GroupSync sync = new H2GroupSync();
        // another commit's sync is in progress (held)
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> awaitDurable(sync, true));
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // a leader of a group commit waits for its own sync, and is interrupted meanwhile
        CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
        Thread leader = new Thread(() -> {
            try {
                awaitDurable(sync, false);
                interruptedAfter.complete(Thread.currentThread().isInterrupted());
            }
            catch (RuntimeException ex) {
                interruptedAfter.completeExceptionally(ex);
            }
        });
        leader.start();
        awaitWaiting(leader);
        leader.interrupt();
        // a thread that may be interrupted gives up instead
        Thread other = new Thread(() -> awaitDurable(sync, true));
        CompletableFuture<Throwable> otherFailure = new CompletableFuture<>();
        other.setUncaughtExceptionHandler((thread, ex) -> otherFailure.complete(ex));
        other.start();
        awaitWaiting(other);
        other.interrupt();
        assertThat(otherFailure.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SQLException.class)
            .hasMessageContaining("Interrupted");

        this.dataSource.release();
        first.get(10, TimeUnit.SECONDS);
        // the leader's wait ended with its sync, not with the interrupt, which it still has
        assertThat(interruptedAfter.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sync.syncs()).isEqualTo(2);
    }

    private void awaitDurable(H2GroupSync sync, boolean interruptible) {
        try (Connection connection = this.dataSource.getConnection()) {
            sync.awaitDurable(connection, interruptible);
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void awaitWaiting(Thread thread) {
        spinUntil(() -> thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING,
                "the thread waiting for the sync");
    }

    @Test
    void aSyncThatFailsIsNotAnAcknowledgement() {
        open();
        this.dataSource.failSyncs();

        assertThatExceptionOfType(StoreUnavailableException.class)
            .isThrownBy(() -> this.store.create(execution("pedido-1")));
        assertThat(this.store.syncs().orElseThrow().syncs()).isZero();
    }

    @Test
    void aStoreInMemorySyncsNothing() {
        JdbcExecutionStore inMemory = H2TestStore.open("durable", "");
        try {
            inMemory.create(execution("pedido-1"));
            assertThat(inMemory.syncs()).isEmpty();
        }
        finally {
            try {
                inMemory.close();
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }
    }

    @Test
    void anApplicationsOwnH2FileStoreIsSyncedAndWritesEachCommitAsItReturns() {
        String url = "jdbc:h2:file:" + this.directory.resolve("app").toAbsolutePath();
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
            .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false",
                    "skail.store.url=" + url)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                JdbcExecutionStore store = context.getBean(JdbcExecutionStore.class);
                long before = store.syncs().orElseThrow().syncs();
                store.create(execution("pedido-1"));
                assertThat(store.syncs().orElseThrow().syncs()).isGreaterThan(before);
                // no background writer whose write in hand a sync could miss: H2 writes each commit as it returns
                assertThat(writeDelay(url)).isEqualTo("0");
            });
    }

    @Test
    void anOrderOfSeveralKilobytesIsKeptInItsStepsRowAndReadBackAsRecorded() throws Exception {
        open();
        StringBuilder items = new StringBuilder();
        for (int i = 0; i < 120; i++) {
            items.append((i > 0) ? "," : "").append("{\"sku\":\"SKU-").append(i)
                .append("\",\"quantidade\":2,\"precoUnitario\":150.00,\"desconto\":0.10}");
        }
        String order = "[{\"pedidoId\":\"3f1c2a9e-0000-4000-8000-000000000001\",\"total\":12000.00,"
                + "\"criadoEm\":\"2026-12-02T09:15:30-03:00\",\"itens\":[" + items + "]}]";
        assertThat(order.length()).isGreaterThan(8_000);
        this.store.create(new ExecutionRow("pedido-1", "vendas", "v1", "processarPedido", order,
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of()).get(0);
        this.store.recordStep(lease, new StepRow("pedido-1", 0, StepRow.COMMAND, "reservarEstoque", order,
                StepRow.COMPLETED, order, null, "key-0", 1, 150, 160, null), null, 200, 30_000);

        StepRow recorded = this.store.history("pedido-1").orElseThrow().steps().get(0);
        assertThat(recorded.arguments()).isEqualTo(order);
        assertThat(recorded.result()).isEqualTo(order);
        assertThat(this.store.find("pedido-1").orElseThrow().arguments()).isEqualTo(order);
        // in the rows themselves: nothing went to H2's separate storage of large objects
        try (Connection connection = java.sql.DriverManager.getConnection(
                "jdbc:h2:file:" + this.directory.resolve("skail"))) {
            org.h2.engine.Database database = ((org.h2.engine.SessionLocal) ((org.h2.jdbc.JdbcConnection) connection)
                .getSession()).getDatabase();
            assertThat(database.getMaxLengthInplaceLob()).isEqualTo(H2JdbcCustomization.MAX_LENGTH_INPLACE_LOB);
            assertThat(org.h2.mvstore.db.LobStorageMap.openLobMap(database.getStore().getTransactionStore()))
                .isEmpty();
        }
    }

    @Test
    void aStoreWhoseUserMayNotSyncDoesNotStartAndSaysWhy() throws Exception {
        String url = "jdbc:h2:file:" + this.directory.resolve("shared").toAbsolutePath();
        try (Connection admin = java.sql.DriverManager.getConnection(url, "sa", "");
                Statement statement = admin.createStatement()) {
            statement.execute("CREATE USER app PASSWORD 'app'");
            statement.execute("CREATE SCHEMA loja AUTHORIZATION app");
        }
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(url + ";SCHEMA=LOJA");
        h2.setUser("app");
        h2.setPassword("app");
        JdbcExecutionStore notAdmin = new JdbcExecutionStore(h2, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 1, Duration.ofMillis(1), Duration.ofMillis(5)), null);

        assertThatExceptionOfType(RuntimeException.class).isThrownBy(notAdmin::initialize)
            .withStackTraceContaining("must be an administrator")
            .withStackTraceContaining("CHECKPOINT SYNC");
    }

    private void open() {
        this.store = openFileStore(this.dataSource, this.directory);
        assertThat(this.store.syncs()).isPresent();
    }

    /** An embedded store on a new H2 file in {@code directory}, its connections through {@code dataSource}. */
    static JdbcExecutionStore openFileStore(SyncWatchingDataSource dataSource, Path directory) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:file:" + directory.resolve("skail") + ";WRITE_DELAY=0");
        dataSource.target = h2;
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 2, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        store.initialize();
        return store;
    }

    /** Returns once {@code condition} holds, failing after 10 s: for a thread to reach a state another one awaits. */
    static void spinUntil(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** The setting as the database has it, read through the same embedded database the application opened. */
    private static String writeDelay(String url) throws SQLException {
        try (Connection connection = java.sql.DriverManager.getConnection(url);
                Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery(
                        "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }

    private void awaitQueued(int writes) {
        spinUntil(() -> this.store.writesQueued() >= writes, "the writes waiting for the next group commit");
    }

    private static ExecutionRow execution(String taskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[{\"total\":150.00}]",
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null);
    }

    private static StepRow command(String taskId, int position) {
        return new StepRow(taskId, position, StepRow.COMMAND, "reservarEstoque", "[]", StepRow.COMPLETED,
                "{\"reserva\":\"r-1\"}", null, "key-" + position, 1, 150, 160, null);
    }

    /** A data source that can hold the next {@code CHECKPOINT SYNC} until released, or make every one fail. */
    static final class SyncWatchingDataSource extends org.springframework.jdbc.datasource.AbstractDataSource {

        volatile DataSource target;

        final CountDownLatch syncEntered = new CountDownLatch(1);

        private final CountDownLatch released = new CountDownLatch(1);

        private final AtomicBoolean holding = new AtomicBoolean();

        private final AtomicBoolean failing = new AtomicBoolean();

        private final AtomicInteger held = new AtomicInteger();

        /** Entered by the sync after the held one, when {@link #holdSecondSync} asked for it. */
        final CountDownLatch secondSyncEntered = new CountDownLatch(1);

        private final CountDownLatch secondReleased = new CountDownLatch(1);

        private final AtomicBoolean holdingSecond = new AtomicBoolean();

        void holdSyncs() {
            this.holding.set(true);
        }

        /** Holds the sync that comes after the one {@link #holdSyncs} holds, until {@link #releaseSecond}. */
        void holdSecondSync() {
            this.holdingSecond.set(true);
        }

        void releaseSecond() {
            this.holdingSecond.set(false);
            this.secondReleased.countDown();
        }

        void failSyncs() {
            this.failing.set(true);
        }

        void release() {
            this.holding.set(false);
            this.released.countDown();
        }

        @Override
        public Connection getConnection() throws SQLException {
            return watch(this.target.getConnection());
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return watch(this.target.getConnection(username, password));
        }

        private Connection watch(Connection connection) {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
                    (proxy, method, args) -> {
                        Object result = invoke(connection, method, args);
                        if (result instanceof Statement statement && "createStatement".equals(method.getName())) {
                            return watch(statement);
                        }
                        return result;
                    });
        }

        private Statement watch(Statement statement) {
            return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Statement.class },
                    (proxy, method, args) -> {
                        if ("execute".equals(method.getName()) && args != null
                                && "CHECKPOINT SYNC".equals(args[0])) {
                            if (this.failing.get()) {
                                throw new SQLException("IO Exception: \"fsync failed\"", "08000");
                            }
                            // the store's compaction syncs its rewrites on a thread of its own, when it finds
                            // something to rewrite: not one of the syncs a test holds or counts
                            boolean compaction = Thread.currentThread().getName()
                                .equals(H2Housekeeping.THREAD_NAME);
                            if (!compaction && (this.holding.get() || this.holdingSecond.get())) {
                                int index = this.held.getAndIncrement();
                                if (index == 0 && this.holding.get()) {
                                    this.syncEntered.countDown();
                                    this.released.await(30, TimeUnit.SECONDS);
                                }
                                else if (index == 1 && this.holdingSecond.get()) {
                                    this.secondSyncEntered.countDown();
                                    this.secondReleased.await(30, TimeUnit.SECONDS);
                                }
                            }
                        }
                        return invoke(statement, method, args);
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
