package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Tag;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's search on H2 and PostgreSQL: executions created in the same millisecond come in id order, so pages
 * neither repeat nor skip one; several statuses never answer a row twice; a bound at a fraction of a millisecond
 * compares as the times kept (milliseconds) do.
 */
class SearchOrderTests {

    private static final long AT = Instant.parse("2025-03-14T12:00:00Z").toEpochMilli();

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : this.closing) {
            closeable.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "H2", "POSTGRESQL" })
    void executionsOfTheSameMillisecondArePagedByIdWithoutRepeatsOrGaps(SqlDialect dialect) {
        JdbcExecutionStore store = store(dialect);
        for (int i = 1; i <= 7; i++) {
            store.create(execution("pedido-" + i, ExecutionStatus.PENDING, AT), List.of(new Tag("lote", "L-7")));
        }
        SkailQuery lote = SkailQuery.all().withTag("lote", "L-7");

        List<String> paged = new ArrayList<>();
        for (int page = 0; page < 3; page++) {
            store.search(lote, page * 3L, 3).forEach((row) -> paged.add(row.taskId()));
        }

        assertThat(paged).containsExactly("pedido-7", "pedido-6", "pedido-5", "pedido-4", "pedido-3", "pedido-2",
                "pedido-1");
    }

    @ParameterizedTest
    @ValueSource(strings = { "H2", "POSTGRESQL" })
    void severalStatusesAnswerEachExecutionOnceAndCountsAddUp(SqlDialect dialect) {
        JdbcExecutionStore store = store(dialect);
        ExecutionStatus[] statuses = { ExecutionStatus.FAILED, ExecutionStatus.CANCELLED, ExecutionStatus.WAITING };
        for (int i = 0; i < 30; i++) {
            store.create(execution("exec-" + i, statuses[i % 3], AT + i), List.of());
        }

        List<ExecutionRow> found = store.search(SkailQuery.all()
            .withStatuses(ExecutionStatus.FAILED, ExecutionStatus.CANCELLED), 0, 100);

        assertThat(found).hasSize(20).extracting(ExecutionRow::taskId).doesNotHaveDuplicates();
        assertThat(store.countByStatus(SkailQuery.all())).containsEntry(ExecutionStatus.FAILED, 10L)
            .containsEntry(ExecutionStatus.CANCELLED, 10L).containsEntry(ExecutionStatus.WAITING, 10L)
            .containsEntry(ExecutionStatus.COMPLETED, 0L);
    }

    @ParameterizedTest
    @ValueSource(strings = { "H2", "POSTGRESQL" })
    void boundsBetweenMillisecondsCompareAsTheKeptMilliseconds(SqlDialect dialect) {
        JdbcExecutionStore store = store(dialect);
        store.create(execution("at", ExecutionStatus.PENDING, AT), List.of());
        Instant justAfter = Instant.ofEpochMilli(AT).plusNanos(400_000);

        assertThat(store.search(SkailQuery.all().withCreatedFrom(justAfter), 0, 10)).isEmpty();
        assertThat(store.search(SkailQuery.all().withCreatedTo(justAfter), 0, 10)).hasSize(1);
        assertThat(store.search(SkailQuery.all().withCreatedFrom(Instant.ofEpochMilli(AT)), 0, 10)).hasSize(1);
        assertThat(store.search(SkailQuery.all().withCreatedTo(Instant.ofEpochMilli(AT)), 0, 10)).isEmpty();
        assertThat(store.search(SkailQuery.all().withCreatedFrom(Instant.MIN).withCreatedTo(Instant.MAX), 0, 10))
            .hasSize(1);
    }

    private static ExecutionRow execution(String taskId, ExecutionStatus status, long createdAt) {
        return new ExecutionRow(taskId, "vendas", "v1.0.0", "processarPedido", "[]", status, null, null, 1, 0,
                createdAt, createdAt, createdAt, null);
    }

    private JdbcExecutionStore store(SqlDialect dialect) {
        JdbcExecutionStore store;
        if (dialect == SqlDialect.H2) {
            store = H2TestStore.open("search-order", "");
        }
        else {
            String schema = "search_order_" + UUID.randomUUID().toString().replace("-", "");
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl(PostgreSqlForTests.url());
            pool.setSchema(schema);
            pool.setMaximumPoolSize(2);
            store = new JdbcExecutionStore(pool, SqlDialect.POSTGRESQL,
                    new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), pool, schema,
                    true);
            this.closing.add(() -> {
                try (Connection connection = java.sql.DriverManager.getConnection(PostgreSqlForTests.url());
                        Statement statement = connection.createStatement()) {
                    statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            });
        }
        store.initialize();
        this.closing.add(0, store);
        return store;
    }
}
