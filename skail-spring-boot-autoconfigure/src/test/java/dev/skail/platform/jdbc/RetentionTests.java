package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;

import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.Tag;
import dev.skail.SkailQuery;
import dev.skail.runtime.SkailRetention;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Retention: ended executions older than the period are deleted with their histories, in batches. */
class RetentionTests {

    private static final long DAY = Duration.ofDays(1).toMillis();

    private static final long NOW = 100 * DAY;

    private JdbcExecutionStore store;

    @BeforeEach
    void open() {
        this.store = H2TestStore.open("retention", "");
    }

    @AfterEach
    void close() throws Exception {
        this.store.close();
    }

    @Test
    void executionsThatEndedBeforeThePeriodAreDeletedWithTheirHistoryAndTheOthersKept() {
        completed("old", null, NOW - 40 * DAY);
        completed("recent", null, NOW - 10 * DAY);
        this.store.create(execution("waiting", null, NOW - 60 * DAY));
        // a child that ended long ago, whose parent still waits to read its outcome
        this.store.create(execution("parent", null, NOW - 60 * DAY));
        completed("parent:0", "parent", NOW - 50 * DAY);

        int deleted = retention(Duration.ofDays(30), 500).deleteEnded();

        assertThat(deleted).isEqualTo(1);
        assertThat(this.store.find("old")).isEmpty();
        assertThat(this.store.history("old")).isEmpty();
        assertThat(this.store.find("recent")).isPresent();
        assertThat(this.store.find("waiting")).isPresent();
        assertThat(this.store.find("parent:0")).isPresent();
    }

    @Test
    void anExecutionCreatedBeforeThePeriodThatEndedInItIsKept() {
        // retention reads the ended executions created before the period: this one is among them, and must stay
        completed("long-lived", null, NOW - 60 * DAY, NOW - 5 * DAY);
        completed("old", null, NOW - 45 * DAY, NOW - 31 * DAY);

        int deleted = retention(Duration.ofDays(30), 500).deleteEnded();

        assertThat(deleted).isEqualTo(1);
        assertThat(this.store.find("long-lived")).isPresent();
        assertThat(this.store.history("long-lived")).hasValueSatisfying((history) -> assertThat(history.steps()).hasSize(1));
        assertThat(this.store.find("old")).isEmpty();
    }

    @Test
    void retentionReadsEndedExecutionsThroughTheIndexOfStatusesAndCreationTimes() throws SQLException {
        try (Connection connection = this.store.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("EXPLAIN " + JdbcExecutionStore.endedBefore(500)
                    .replace("?", Long.toString(NOW - 30 * DAY)))) {
            rs.next();
            // H2 names the index it reads in a comment; the parent is looked up by its primary key
            assertThat(rs.getString(1)).contains("PUBLIC.SKAIL_EXECUTION_STATUS_RECENT").doesNotContain("tableScan");
        }
    }

    @Test
    void theTagsOfADeletedExecutionGoWithItAndTheOthersKeepTheirs() {
        completed("old", null, NOW - 40 * DAY, List.of(new Tag("pedido", "p-1"), new Tag("cliente", "c-1042")));
        completed("recent", null, NOW - 10 * DAY, List.of(new Tag("pedido", "p-2")));

        retention(Duration.ofDays(30), 500).deleteEnded();

        assertThat(this.store.tags(List.of("old", "recent"))).containsOnlyKeys("recent");
        assertThat(this.store.search(SkailQuery.all().withTag("pedido", "p-1"), 0, 10)).isEmpty();
        assertThat(this.store.search(SkailQuery.all().withTag("pedido", "p-2"), 0, 10))
            .extracting(ExecutionRow::taskId).containsExactly("recent");
    }

    @Test
    void aLargeBacklogIsDeletedInBatchesOfTheConfiguredSize() {
        for (int i = 0; i < 1_203; i++) {
            completed("old-" + i, null, NOW - 40 * DAY);
        }

        int deleted = retention(Duration.ofDays(30), 500).deleteEnded();

        assertThat(deleted).isEqualTo(1_203);
        assertThat(this.store.search(dev.skail.SkailQuery.all(), 0, 10)).isEmpty();
    }

    @Test
    void retentionIsOffUnlessAPeriodIsSet() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(dev.skail.autoconfigure.SkailAutoConfiguration.class))
            .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false",
                    "skail.store.url=jdbc:h2:mem:retention-context-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        runner.run((context) -> assertThat(context).doesNotHaveBean(SkailRetention.class));
        runner.withPropertyValues("skail.retention.ended-after=30d")
            .run((context) -> assertThat(context).hasSingleBean(SkailRetention.class));
    }

    private SkailRetention retention(Duration keep, int batchSize) {
        return new SkailRetention(this.store, Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC), keep,
                Duration.ofHours(1), batchSize);
    }

    /** An execution with one recorded step that completed at {@code endedAt}. */
    private void completed(String taskId, String parent, long endedAt) {
        completed(taskId, parent, endedAt, List.of());
    }

    private void completed(String taskId, String parent, long endedAt, List<Tag> tags) {
        completed(taskId, parent, endedAt - 1000, endedAt, tags);
    }

    private void completed(String taskId, String parent, long createdAt, long endedAt) {
        completed(taskId, parent, createdAt, endedAt, List.of());
    }

    private void completed(String taskId, String parent, long createdAt, long endedAt, List<Tag> tags) {
        this.store.create(execution(taskId, parent, createdAt), tags);
        Lease lease = this.store.claimDue("vendas", "v1", "test", 10, endedAt - 900, endedAt + DAY, Set.of())
            .stream().filter((claimed) -> claimed.taskId().equals(taskId)).findFirst().orElseThrow();
        this.store.recordStep(lease, new StepRow(taskId, 0, StepRow.COMMAND, "cobrarCartao", "[\"150.00\"]",
                StepRow.COMPLETED, "\"ok\"", null, "key-" + taskId, 1, endedAt - 800, endedAt - 800, null), null,
                endedAt - 800, endedAt + DAY);
        this.store.complete(lease, "\"ok\"", endedAt);
    }

    private static ExecutionRow execution(String taskId, String parent, long createdAt) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[]", ExecutionStatus.PENDING, null, null, 1,
                0, createdAt, createdAt, createdAt, parent);
    }
}
