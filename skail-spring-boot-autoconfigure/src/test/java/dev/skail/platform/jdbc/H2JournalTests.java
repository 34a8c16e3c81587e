package dev.skail.platform.jdbc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded store's journal ({@link H2Journal}): H2 keeps its commits in memory and writes them in the background,
 * and every acknowledged commit is in the journal on the device. A crash that loses what H2 had not written yet
 * ({@code SHUTDOWN IMMEDIATELY}: H2 closes without writing) loses nothing acknowledged: the next start replays it.
 */
class H2JournalTests {

    @TempDir
    Path directory;

    private final List<HikariDataSource> pools = new ArrayList<>();

    private final List<JdbcExecutionStore> stores = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        H2Journal.segmentBytes = 64L << 20;
        for (JdbcExecutionStore store : this.stores) {
            store.close();
        }
        this.pools.forEach(HikariDataSource::close);
    }

    @Test
    void whatWasAcknowledgedSurvivesACrashThatLosesWhatH2HadNotWritten() throws Exception {
        JdbcExecutionStore store = open();
        holdH2Writes();
        List<String> ids = recordOrders(store, 0, 20);

        crash();
        // H2's own file lost the orders: only the journal has them
        assertThat(ordersInH2FileAlone()).isLessThan(20);

        JdbcExecutionStore reopened = open();
        assertOrders(reopened, ids);
        assertThat(journalSegments()).as("replayed, then deleted").hasSize(1);
    }

    @Test
    void aDatabaseThatH2ClosedAndOpenedAgainInThisProcessIsRefusedUntilARestartReplaysTheJournal() throws Exception {
        JdbcExecutionStore store = open();
        holdH2Writes();
        List<String> ids = recordOrders(store, 0, 5);
        // H2 closes the database (as after an I/O error) and the next connection opens it again from its file
        try (Connection connection = java.sql.DriverManager.getConnection(url(), "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("SHUTDOWN IMMEDIATELY");
        }
        catch (java.sql.SQLException ex) {
            // the connection goes with the database
        }
        try (Connection reopening = java.sql.DriverManager.getConnection(url(), "sa", "")) {
            assertThat(reopening.isValid(1)).isTrue();
        }
        // as the application's pool does once it sees the database closed (SkailAutoConfiguration)
        this.pools.get(0).getHikariPoolMXBean().softEvictConnections();

        org.assertj.core.api.Assertions.assertThatExceptionOfType(RuntimeException.class)
            .isThrownBy(() -> store.create(execution("pedido-novo")))
            .withStackTraceContaining("restart the application");
        org.assertj.core.api.Assertions.assertThatExceptionOfType(RuntimeException.class)
            .isThrownBy(store::check)
            .withMessageContaining("restart the application");

        crash();
        JdbcExecutionStore restarted = open();
        assertOrders(restarted, ids);
        assertThat(restarted.find("pedido-novo")).isEmpty();
    }

    @Test
    void oldSegmentsGoOnceH2HoldsThemAndARecoveryStillFindsEverything() throws Exception {
        H2Journal.segmentBytes = 16 * 1024;
        JdbcExecutionStore store = open();
        List<String> ids = recordOrders(store, 0, 60);
        // rotations happened and their segments were deleted after H2's checkpoint: only the newest are left
        awaitSegmentsAtMost(2);
        holdH2Writes();
        ids.addAll(recordOrders(store, 60, 10));

        crash();
        JdbcExecutionStore reopened = open();

        assertOrders(reopened, ids);
    }

    @Test
    void oneWriterForcesTheJournalAtEachCommitAndManyWritersShareAForce() throws Exception {
        JdbcExecutionStore store = open();
        JdbcExecutionStore.Syncs before = store.syncs().orElseThrow();
        store.create(execution("pedido-1"));
        JdbcExecutionStore.Syncs one = store.syncs().orElseThrow();
        assertThat(one.commits() - before.commits()).isEqualTo(1);
        assertThat(one.syncs() - before.syncs()).isEqualTo(1);

        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> writes = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String id = "pedido-c" + i;
                writes.add(pool.submit(() -> {
                    start.await();
                    return store.create(execution(id));
                }));
            }
            start.countDown();
            for (Future<?> write : writes) {
                write.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
        JdbcExecutionStore.Syncs many = store.syncs().orElseThrow();
        assertThat(many.commits() - one.commits()).isEqualTo(400);
        assertThat(many.syncs() - one.syncs()).as("forces shared by commits that waited together")
            .isLessThan(400);
    }

    @Test
    void aCleanShutdownLeavesNoJournalAndNoTriggerBehind() throws Exception {
        JdbcExecutionStore store = open();
        List<String> ids = recordOrders(store, 0, 5);

        store.close();
        this.stores.remove(store);
        this.pools.forEach(HikariDataSource::close);
        this.pools.clear();

        assertThat(journalSegments()).isEmpty();
        try (Connection connection = java.sql.DriverManager.getConnection(url(), "sa", "");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TRIGGERS")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
        assertOrders(open(), ids);
    }

    /** Creates, claims and runs orders: two steps each (with their attempts), a tag, the first ones completed. */
    private static List<String> recordOrders(JdbcExecutionStore store, int from, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            String id = "pedido-" + i;
            store.create(execution(id), List.of(new Tag("cliente", "42")));
            ids.add(id);
        }
        List<Lease> leases = new ArrayList<>();
        while (leases.size() < count) {
            List<Lease> claimed = store.claimDue("vendas", "v1", "a", count, 100, 60_000, Set.of());
            if (claimed.isEmpty()) {
                break;
            }
            leases.addAll(claimed);
        }
        assertThat(leases).hasSize(count);
        for (Lease lease : leases) {
            store.recordStep(lease, step(lease.taskId(), 0, "reservarEstoque", "{\"itens\":[\"sku-1\",\"sku-2\"]}"),
                    attempt(lease.taskId(), 0, "reservarEstoque"), 200, 60_000);
            store.recordStep(lease, step(lease.taskId(), 1, "cobrarCartao", "{\"valor\":1234.50}"),
                    attempt(lease.taskId(), 1, "cobrarCartao"), 300, 60_000);
            store.complete(lease, "{\"total\":1234.50,\"em\":\"2026-03-10T09:30:00-03:00\"}", 400);
        }
        return ids;
    }

    private static void assertOrders(JdbcExecutionStore store, List<String> ids) {
        for (String id : ids) {
            StoredHistory history = store.history(id).orElseThrow(() -> new AssertionError(id + " is lost"));
            assertThat(history.execution().status()).as(id).isEqualTo(ExecutionStatus.COMPLETED);
            assertThat(history.execution().result()).isEqualTo("{\"total\":1234.50,\"em\":\"2026-03-10T09:30:00-03:00\"}");
            assertThat(history.steps()).extracting(StepRow::name).containsExactly("reservarEstoque", "cobrarCartao");
            assertThat(history.attempts()).hasSize(2);
        }
        assertThat(store.tags(ids).values()).allSatisfy((tags) -> assertThat(tags).containsExactly(
                new Tag("cliente", "42")));
    }

    private JdbcExecutionStore open() {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url());
        pool.setUsername("sa");
        pool.setMaximumPoolSize(20);
        this.pools.add(pool);
        JdbcExecutionStore store = new JdbcExecutionStore(pool, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 2, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        store.setJournal(true);
        store.initialize();
        this.stores.add(store);
        return store;
    }

    /** H2 writes nothing in the background for a minute: what it holds is in memory only (and in the journal). */
    private void holdH2Writes() throws Exception {
        try (Connection connection = java.sql.DriverManager.getConnection(url(), "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("SET WRITE_DELAY 60000");
        }
    }

    /** H2 closes at once without writing what it holds in memory, as in a crash; the store is dropped. */
    private void crash() throws Exception {
        try (Connection connection = java.sql.DriverManager.getConnection(url(), "sa", "");
                Statement statement = connection.createStatement()) {
            statement.execute("SHUTDOWN IMMEDIATELY");
        }
        catch (java.sql.SQLException ex) {
            // the connection goes with the database
        }
        this.pools.forEach(HikariDataSource::close);
        this.pools.clear();
        this.stores.clear();
    }

    /** Opens a copy of H2's file as it was left, without the store (so without its journal), and counts orders. */
    private int ordersInH2FileAlone() throws Exception {
        Path copy = this.directory.resolve("copy");
        Files.createDirectories(copy);
        Files.copy(this.directory.resolve("skail.mv.db"), copy.resolve("skail.mv.db"));
        try (Connection connection = java.sql.DriverManager.getConnection("jdbc:h2:file:" + copy.resolve("skail")
                + ";IFEXISTS=TRUE", "sa", "");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM skail_execution WHERE status = 'COMPLETED'")) {
            rs.next();
            return rs.getInt(1);
        }
        catch (java.sql.SQLException ex) {
            // not even the tables: H2 had written nothing of them
            return 0;
        }
    }

    private void awaitSegmentsAtMost(int segments) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (journalSegments().size() > segments) {
            assertThat(System.nanoTime()).as("old journal segments deleted").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private List<Path> journalSegments() throws Exception {
        try (Stream<Path> files = Files.list(this.directory)) {
            return files.filter((file) -> file.getFileName().toString().startsWith("skail.skail-journal.")).toList();
        }
    }

    private String url() {
        return "jdbc:h2:file:" + this.directory.resolve("skail").toAbsolutePath();
    }

    private static ExecutionRow execution(String taskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido",
                "[\"" + taskId + "\",1234.50,\"2026-03-10T09:30:00-03:00\"]", ExecutionStatus.PENDING, null, null, 1, 0,
                0L, 0, 0, null);
    }

    private static StepRow step(String taskId, int position, String name, String result) {
        return new StepRow(taskId, position, StepRow.COMMAND, name, "[\"" + taskId + "\"]", StepRow.COMPLETED, result,
                null, "key-" + position, 1, 150, 160, null);
    }

    private static AttemptRow attempt(String taskId, int position, String name) {
        return new AttemptRow(taskId, position, name, 1, 1, 150, 160, "SUCCEEDED", null, "RECORDED", null);
    }
}
