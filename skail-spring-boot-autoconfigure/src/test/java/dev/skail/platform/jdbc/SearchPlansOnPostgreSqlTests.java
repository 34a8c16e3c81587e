package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The search's statements on PostgreSQL, on a table of 20,000 executions (one a minute over two weeks, ten functions,
 * mostly COMPLETED, two tags each) once ANALYZEd: each main filter reads an index, never the whole table. The plans
 * are the ones {@code docs/search.md} shows; each test prints its plan.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SearchPlansOnPostgreSqlTests {

    private static final int ROWS = 20_000;

    /** The creation time of execution 0; execution i is created i minutes later. */
    private static final long BASE = Instant.parse("2025-03-01T00:00:00Z").toEpochMilli();

    private static final long MINUTE = Duration.ofMinutes(1).toMillis();

    private final String schema = "search_plans_" + UUID.randomUUID().toString().replace("-", "");

    private HikariDataSource pool;

    private JdbcExecutionStore store;

    @BeforeAll
    void fillTheTable() throws SQLException {
        try (Connection connection = java.sql.DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + this.schema);
        }
        this.pool = new HikariDataSource();
        this.pool.setJdbcUrl(PostgreSqlForTests.url());
        this.pool.setSchema(this.schema);
        this.pool.setMaximumPoolSize(2);
        this.store = new JdbcExecutionStore(this.pool, SqlDialect.POSTGRESQL,
                new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        this.store.initialize();
        try (Connection connection = this.pool.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO skail_execution (task_id, workload, version, function_name, arguments, "
                    + "status, attempt, retries_used, created_at, updated_at) "
                    + "SELECT 'pedido-' || lpad(i::text, 6, '0'), 'vendas', 'v1.0.0', (ARRAY['processarPedido', "
                    + "'reservarEstoque', 'cobrarCartao', 'liberarEstoque', 'confirmarPedido', 'faturar', "
                    + "'emitirNota', 'enviarLembrete', 'estornar', 'conciliar'])[1 + i % 10], '[]', "
                    + "CASE WHEN i % 100 = 0 THEN 'FAILED' WHEN i % 100 = 1 THEN 'WAITING' "
                    + "WHEN i % 200 = 2 THEN 'CANCELLED' WHEN i % 500 = 3 THEN 'RUNNING' "
                    + "WHEN i % 500 = 4 THEN 'PENDING' ELSE 'COMPLETED' END, 1, 0, "
                    + BASE + " + i * " + MINUTE + ", " + BASE + " + i * " + MINUTE + " + (i % 3600) * 1000 "
                    + "FROM generate_series(0, " + (ROWS - 1) + ") AS i");
            statement.execute("INSERT INTO skail_tag (task_id, tag_key, tag_value) "
                    + "SELECT 'pedido-' || lpad(i::text, 6, '0'), 'pedido', 'p-' || i FROM generate_series(0, "
                    + (ROWS - 1) + ") AS i "
                    + "UNION ALL SELECT 'pedido-' || lpad(i::text, 6, '0'), 'cliente', 'c-' || (i % 1000) "
                    + "FROM generate_series(0, " + (ROWS - 1) + ") AS i");
            statement.execute("ANALYZE skail_execution");
            statement.execute("ANALYZE skail_tag");
        }
    }

    @AfterAll
    void dropTheSchema() throws Exception {
        this.store.close();
        this.pool.close();
        try (Connection connection = java.sql.DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
        }
    }

    @Test
    void newestFirstWithoutFilters() throws SQLException {
        assertThat(searchPlan(SkailQuery.all())).contains("skail_execution_recent");
        assertThat(this.store.search(SkailQuery.all(), 0, 2)).extracting((row) -> row.taskId())
            .containsExactly("pedido-019999", "pedido-019998");
    }

    @Test
    void byFunction() throws SQLException {
        assertThat(searchPlan(SkailQuery.all().withFunction("faturar"))).contains("skail_execution_function_recent");
    }

    @Test
    void byStatus() throws SQLException {
        assertThat(searchPlan(SkailQuery.all().withStatuses(ExecutionStatus.FAILED)))
            .contains("skail_execution_status_recent");
    }

    @Test
    void bySeveralStatuses() throws SQLException {
        // rare statuses: the newest first, as the index of creation times gives them, until a page is full
        assertThat(searchPlan(SkailQuery.all().withStatuses(ExecutionStatus.FAILED, ExecutionStatus.CANCELLED)))
            .containsPattern("Index Scan .*using skail_execution_");
    }

    @Test
    void byCreationTime() throws SQLException {
        assertThat(searchPlan(SkailQuery.all().withCreatedFrom(at(10_000)).withCreatedTo(at(11_440))))
            .contains("skail_execution_recent");
    }

    @Test
    void byLastChange() throws SQLException {
        assertThat(searchPlan(SkailQuery.all().withUpdatedFrom(at(10_000)).withUpdatedTo(at(10_060))))
            .contains("skail_execution_updated");
    }

    @Test
    void byTag() throws SQLException {
        String plan = searchPlan(SkailQuery.all().withTag("pedido", "p-12345"));
        assertThat(plan).contains("skail_tag_lookup").doesNotContain("Seq Scan on skail_tag");
        assertThat(this.store.search(SkailQuery.all().withTag("pedido", "p-12345"), 0, 21))
            .extracting((row) -> row.taskId()).containsExactly("pedido-012345");
    }

    @Test
    void byTwoTags() throws SQLException {
        String plan = searchPlan(SkailQuery.all().withTag("cliente", "c-42").withTag("pedido", "p-5042"));
        assertThat(plan).contains("skail_tag_lookup").doesNotContain("Seq Scan on skail_tag");
    }

    @Test
    void byFunctionStatusAndCreationTime() throws SQLException {
        assertThat(searchPlan(SkailQuery.all().withFunction("processarPedido").withStatuses(ExecutionStatus.FAILED)
            .withCreatedFrom(at(5_000)).withCreatedTo(at(15_000)))).containsPattern("skail_execution_\\w+");
    }

    @Test
    void countsOfATag() throws SQLException {
        assertThat(countPlan(SkailQuery.all().withTag("cliente", "c-42"))).contains("skail_tag_lookup")
            .doesNotContain("Seq Scan on skail_tag");
        assertThat(this.store.countByStatus(SkailQuery.all().withTag("cliente", "c-42")).values().stream()
            .mapToLong(Long::longValue).sum()).isEqualTo(ROWS / 1000);
    }

    @Test
    void countsOfADay() throws SQLException {
        assertThat(countPlan(SkailQuery.all().withCreatedFrom(at(10_000)).withCreatedTo(at(11_440))))
            .contains("skail_execution_recent");
    }

    @Test
    void countsOfAnHourOfChanges() throws SQLException {
        assertThat(countPlan(SkailQuery.all().withUpdatedFrom(at(10_000)).withUpdatedTo(at(10_060))))
            .contains("skail_execution_updated");
    }

    @Test
    void countsOfAFunction() throws SQLException {
        assertThat(countPlan(SkailQuery.all().withFunction("faturar"))).contains("skail_execution_function_recent");
    }

    @Test
    void retentionReadsTheEndedExecutionsOfItsPeriodThroughIndexesAndTheirParentsByKey() throws SQLException {
        // the executions created in the first 1,000 minutes, of the 20,000, ended before that time: a twentieth read
        long before = at(1_000).toEpochMilli();
        // the execution rows through indexes (creation and change times, or status and creation time), the parents
        // by key (plan() refuses any read of the whole table)
        assertThat(plan(new JdbcExecutionStore.Sql(new StringBuilder(JdbcExecutionStore.endedBefore(500)),
                List.of(before, before)), "retention")).containsPattern("Index Scan using skail_execution_(recent|"
                        + "status_recent|updated) on skail_execution e").contains("Index Scan using skail_execution_pkey on skail_execution p");
        // the table is shared by the tests: the rows retention would delete are read, not deleted
        assertThat(count(JdbcExecutionStore.endedBefore(ROWS), before, before)).isEqualTo(count("SELECT task_id FROM "
                + "skail_execution WHERE status IN ('COMPLETED', 'FAILED', 'CANCELLED') AND updated_at < ?", before))
            .isGreaterThan(900);
    }

    @Test
    void theRunningChildrenOfAnExecutionAreEachReadByKey() throws SQLException {
        assertThat(plan(new JdbcExecutionStore.Sql(new StringBuilder(JdbcExecutionStore.RUNNING_CHILDREN),
                List.of("pedido-000042", "pedido-000042")), "running children"))
            .contains("Index Scan using skail_execution_pkey on skail_execution e");
    }

    private int count(String select, long... times) throws SQLException {
        try (Connection connection = this.pool.getConnection();
                PreparedStatement ps = connection.prepareStatement(select)) {
            for (int i = 0; i < times.length; i++) {
                ps.setLong(i + 1, times[i]);
            }
            int rows = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows++;
                }
            }
            return rows;
        }
    }

    /** The creation time of execution {@code i}. */
    private static Instant at(int i) {
        return Instant.ofEpochMilli(BASE + i * MINUTE);
    }

    private String searchPlan(SkailQuery query) throws SQLException {
        return plan(this.store.searchSql(query, 0, query.size() + 1), query);
    }

    private String countPlan(SkailQuery query) throws SQLException {
        return plan(this.store.countSql(query), query);
    }

    /** The plan of the statement, printed; it never reads the whole table of executions. */
    private String plan(JdbcExecutionStore.Sql sql, Object query) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (Connection connection = this.pool.getConnection();
                PreparedStatement ps = new JdbcExecutionStore.Sql(new StringBuilder("EXPLAIN ").append(sql.text()),
                        sql.values()).prepare(connection);
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                lines.add(rs.getString(1));
            }
        }
        String plan = String.join("\n", lines);
        System.out.println("-- " + query + "\n" + sql.text() + "\n" + plan + "\n");
        assertThat(plan).as(plan).doesNotContain("Seq Scan on skail_execution");
        return plan;
    }
}
