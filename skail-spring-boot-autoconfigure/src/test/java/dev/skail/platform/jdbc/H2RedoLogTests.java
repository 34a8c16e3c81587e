package dev.skail.platform.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The embedded store's log ({@link H2RedoLog}): on the default {@code skail:} file, every commit's rows are in the log
 * before the commit, and opening the store after a crash replays them, so that the tables are as the last
 * acknowledged commit left them.
 */
class H2RedoLogTests {

    private static final List<String> TABLES = List.of("skail_execution", "skail_step", "skail_attempt",
            "skail_event", "skail_runtime", "skail_tag", "skail_schedule");

    @TempDir
    Path directory;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : this.opened) {
            closeable.close();
        }
    }

    @Test
    void theLogOfALiveStoreReplayedIntoAFreshStoreGivesEveryTableAsTheStoreHasIt() throws Exception {
        JdbcExecutionStore live = open(this.directory.resolve("live"));
        // a fresh store with the same schema and nothing in it
        JdbcExecutionStore fresh = open(this.directory.resolve("fresh"));
        fresh.close();
        this.opened.remove(fresh);

        writeAllKindsOfRows(live);
        // what a transaction rolled back to a savepoint, or rolled back whole, is not in the log
        try (Connection connection = live.connections().getConnection()) {
            connection.setAutoCommit(false);
            insertTag(connection, "pedido-1", "canal", "loja");
            Savepoint savepoint = connection.setSavepoint();
            insertTag(connection, "pedido-1", "canal", "rolled-back-to-savepoint");
            connection.rollback(savepoint);
            insertTag(connection, "pedido-1", "canal", "after-savepoint");
            connection.commit();
            insertTag(connection, "pedido-1", "canal", "rolled-back");
            connection.rollback();
        }

        Path liveLog = this.directory.resolve("live");
        List<Path> segments = new ArrayList<>(H2RedoLog.segmentsOf(liveLog.resolve("skail")).values());
        assertThat(segments).isNotEmpty();
        for (Path segment : segments) {
            Files.copy(segment, this.directory.resolve("fresh").resolve(segment.getFileName()));
        }
        JdbcExecutionStore replayed = open(this.directory.resolve("fresh"));

        for (String table : TABLES) {
            assertThat(rows(replayed, table)).as(table).isEqualTo(rows(live, table));
        }
        assertThat(rows(replayed, "skail_tag")).contains("pedido-1|canal|after-savepoint")
            .noneMatch((row) -> row.contains("rolled-back"));
        assertThat(rows(live, "skail_step")).anyMatch((row) -> row.contains("\"valor\":1500.10"));
        // the events' ids go on after those replayed
        ExecutionStore.FireOutcome outcome = replayed.fire("pedido-2", "pagamentoConfirmado", "{\"valor\":10.00}",
                "evento-novo", 9_000);
        assertThat(outcome).isNotNull();
        assertThat(rows(replayed, "skail_event")).hasSize(rows(live, "skail_event").size() + 1);
    }

    @Test
    void whatAKilledProcessAcknowledgedIsThereWhenTheStoreOpensAgain() throws Exception {
        Path store = this.directory.resolve("killed");
        String url = H2Urls.PREALLOCATED_FILE + store.resolve("skail") + ";FILE_LOCK=FS";
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), H2StoreWriter.class.getName(), url)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
        ConcurrentLinkedQueue<String> acknowledged = new ConcurrentLinkedQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream()))) {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("pedido-")) {
                        acknowledged.add(line.trim());
                    }
                }
            }
            catch (IOException ex) {
                // the process was killed
            }
        });
        reader.start();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= 1_500);
        }
        finally {
            writer.destroyForcibly();
            writer.waitFor(30, TimeUnit.SECONDS);
            reader.join(10_000);
        }
        // killed without closing: the log is there to replay
        assertThat(H2RedoLog.segmentsOf(store.resolve("skail"))).isNotEmpty();

        JdbcExecutionStore reopened = open(store);
        for (String taskId : acknowledged) {
            assertThat(reopened.find(taskId)).as(taskId).isPresent();
            assertThat(reopened.history(taskId).orElseThrow().steps()).as(taskId).hasSize(1);
        }
        assertThat(reopened.tags(List.of("pedido-7")).get("pedido-7")).containsExactly(new Tag("cliente", "c-0"));
        // replayed and forced into H2's file: the log begins again
        assertThat(H2RedoLog.segmentsOf(store.resolve("skail"))).hasSize(1);
    }

    @Test
    void aStoreClosedCleanlyLeavesNoLogAndItsFileHoldsEverything() throws Exception {
        Path store = this.directory.resolve("closed");
        JdbcExecutionStore first = open(store);
        writeAllKindsOfRows(first);
        List<String> steps = rows(first, "skail_step");
        first.close();
        this.opened.remove(first);

        assertThat(H2RedoLog.segmentsOf(store.resolve("skail"))).isEmpty();
        // H2's file alone, through a URL that knows nothing of the log
        HikariDataSource plain = new HikariDataSource();
        plain.setJdbcUrl("jdbc:h2:file:" + store.resolve("skail") + ";FILE_LOCK=FS");
        this.opened.add(plain);
        try (Connection connection = plain.getConnection()) {
            assertThat(rows(connection, "skail_step")).isEqualTo(steps);
        }
    }

    @Test
    void segmentsGoOnceH2sFileHoldsThemAndNothingIsLost() throws Exception {
        Path store = this.directory.resolve("segments");
        JdbcExecutionStore first = open(store);
        String document = "{\"itens\":[" + "{\"sku\":\"A-1\",\"quantidade\":2,\"preco\":150.00},".repeat(200)
                + "{\"sku\":\"B-2\",\"quantidade\":1,\"preco\":0.10}]}";
        first.create(order("pedido-grande"));
        Lease lease = first.claimDue("vendas", "v1", "a", 1, 100, 1_000_000, Set.of()).get(0);
        int steps = (3 * H2RedoLog.SEGMENT) / (2 * document.length()) + 1;
        for (int position = 0; position < steps; position++) {
            first.recordStep(lease, new StepRow("pedido-grande", position, StepRow.COMMAND, "reservarEstoque",
                    "[" + document + "]", StepRow.COMPLETED, document, null, "key-" + position, 1, 150, 160, null),
                    null, 200, 1_000_000);
        }
        // appends moved on past the first two segments; a checkpoint deleted them
        await().atMost(Duration.ofSeconds(30))
            .until(() -> H2RedoLog.segmentsOf(store.resolve("skail")).firstKey() > 1
                    && H2RedoLog.segmentsOf(store.resolve("skail")).size() <= 2);
        assertThat(first.history("pedido-grande").orElseThrow().steps()).hasSize(steps);
    }

    @Test
    void aStatementThatCommitsItselfCommitsThroughTheLog() throws Exception {
        Path store = this.directory.resolve("autocommit");
        JdbcExecutionStore live = open(store);
        live.create(order("pedido-1"));
        try (Connection connection = live.connections().getConnection()) {
            assertThat(connection.getAutoCommit()).isTrue();
            insertTag(connection, "pedido-1", "canal", "loja");
            try (Statement statement = connection.createStatement()) {
                assertThat(statement.executeUpdate("UPDATE skail_tag SET tag_value = 'app' WHERE task_id = 'pedido-1'"))
                    .isOne();
            }
        }
        // the log alone, replayed into a fresh store, has both writes
        JdbcExecutionStore fresh = open(this.directory.resolve("fresh"));
        fresh.close();
        this.opened.remove(fresh);
        for (Path segment : H2RedoLog.segmentsOf(store.resolve("skail")).values()) {
            Files.copy(segment, this.directory.resolve("fresh").resolve(segment.getFileName()));
        }
        JdbcExecutionStore replayed = open(this.directory.resolve("fresh"));
        assertThat(replayed.tags(List.of("pedido-1")).get("pedido-1")).containsExactly(new Tag("canal", "app"));
    }

    @Test
    void theDefaultUrlIsLeftWithoutAWriteDelayAndOtherFileUrlsStillGetZero() {
        String url = H2Urls.PREALLOCATED_FILE + this.directory.resolve("skail") + ";FILE_LOCK=FS";
        assertThat(H2Urls.durable(url)).isEqualTo(url);
        assertThat(H2Urls.durable(url + ";AUTO_SERVER=TRUE")).endsWith(";WRITE_DELAY=0");
        assertThat(H2Urls.durable("jdbc:h2:file:" + this.directory.resolve("skail"))).endsWith(";WRITE_DELAY=0");
    }

    /** Rows of every table of the store, through its API: executions, tags, steps, attempts, events, runtimes. */
    private static void writeAllKindsOfRows(JdbcExecutionStore store) throws Exception {
        for (int i = 1; i <= 3; i++) {
            store.create(order("pedido-" + i), List.of(new Tag("cliente", "c-" + i), new Tag("loja", "sp")));
        }
        List<Lease> leases = store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of());
        assertThat(leases).hasSize(3);
        Lease first = lease(leases, "pedido-1");
        Lease second = lease(leases, "pedido-2");
        Lease third = lease(leases, "pedido-3");
        String money = "[{\"valor\":1500.10,\"moeda\":\"BRL\",\"em\":\"2026-12-02T10:15:30-03:00\"}]";
        store.recordStep(first, new StepRow("pedido-1", 0, StepRow.COMMAND, "cobrarCartao", money, StepRow.COMPLETED,
                "{\"cobranca\":\"ch-1\",\"total\":1500.10}", null, "key-1", 1, 150, 160, null),
                new AttemptRow("pedido-1", 0, "cobrarCartao", 1, 1, 150, 155, "FAILED",
                        "{\"type\":\"org.springframework.web.client.HttpServerErrorException\",\"status\":503}",
                        "RETRY", 100L),
                200, 30_000);
        store.recordAttempt(first, new AttemptRow("pedido-1", 0, "cobrarCartao", 1, 2, 156, 160, "SUCCEEDED", null,
                "DONE", null), 210, 30_000);
        store.complete(first, "{\"pedido\":\"pedido-1\",\"total\":1500.10}", 300);
        store.recordStep(second, new StepRow("pedido-2", 0, StepRow.COMMAND, "reservarEstoque", money,
                StepRow.COMPLETED, "{\"reserva\":\"r-2\"}", null, "key-2", 1, 305, 306, null), null, 306, 30_000);
        store.fire("pedido-2", "pagamentoConfirmado", "{\"valor\":10.00}", "evento-1", 310);
        store.fire("pedido-2", "pagamentoConfirmado", "{\"valor\":20.00}", "evento-2", 311);
        store.suspend(second, new Suspend(ExecutionStatus.WAITING, 5_000L, Set.of("pagamentoConfirmado"), Set.of()),
                320);
        store.fail(third, "{\"type\":\"java.lang.IllegalStateException\",\"message\":\"sem estoque\"}", null, 330);
        store.heartbeat("instancia-1", "vendas", "v1", 340);
        store.scheduleStore().register(new dev.skail.platform.ScheduleRow("vendas", "fechamento", "fecharCaixa", "v1",
                "0 0 18 * * *", "America/Sao_Paulo", "SKIP", 64_800_000L, null, null, 350), 350);
        // an ended execution deleted by retention, with its rows
        store.deleteEndedBefore(10_000, 1);
    }

    private static Lease lease(List<Lease> leases, String taskId) {
        return leases.stream().filter((lease) -> lease.taskId().equals(taskId)).findFirst().orElseThrow();
    }

    static ExecutionRow order(String taskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido",
                "[{\"pedido\":\"" + taskId + "\",\"total\":150.00,\"em\":\"2026-12-02T10:15:30-03:00\"}]",
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null);
    }

    private static void insertTag(Connection connection, String taskId, String key, String value)
            throws SQLException {
        try (java.sql.PreparedStatement insert = connection
            .prepareStatement("INSERT INTO skail_tag (task_id, tag_key, tag_value) VALUES (?, ?, ?)")) {
            insert.setString(1, taskId);
            insert.setString(2, key);
            insert.setString(3, value);
            insert.executeUpdate();
        }
    }

    private JdbcExecutionStore open(Path directory) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(H2Urls.durable(H2Urls.PREALLOCATED_FILE + directory.resolve("skail") + ";FILE_LOCK=FS"));
        JdbcExecutionStore store = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), dataSource);
        store.initialize();
        this.opened.add(0, store);
        return store;
    }

    private static List<String> rows(JdbcExecutionStore store, String table) throws SQLException {
        try (Connection connection = store.connections().getConnection()) {
            return rows(connection, table);
        }
    }

    /** Every row of the table, its columns joined, in the order of all its columns. */
    private static List<String> rows(Connection connection, String table) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT * FROM " + table + " ORDER BY 1, 2, 3")) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int column = 1; column <= meta.getColumnCount(); column++) {
                    row.append((column > 1) ? "|" : "").append(rs.getString(column));
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }
}
