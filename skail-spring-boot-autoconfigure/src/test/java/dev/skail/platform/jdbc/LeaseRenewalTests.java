package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** S14: renewing leases keeps the executions a runner still holds, and names those another runner took over. */
class LeaseRenewalTests {

    private HikariDataSource dataSource;

    private JdbcExecutionStore store;

    @BeforeEach
    void open() {
        this.dataSource = new HikariDataSource();
        // a lock wait longer than the test: a lock-order inversion shows as a deadlock, not as a timeout
        this.dataSource.setJdbcUrl("jdbc:h2:mem:renew-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        this.store = new JdbcExecutionStore(this.dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), this.dataSource);
        this.store.initialize();
    }

    @AfterEach
    void close() throws Exception {
        this.store.close();
    }

    @Test
    void renewedLeasesAreExtendedSoNoOtherRunnerTakesTheirExecutions() {
        this.store.create(execution("t-1", null));
        this.store.create(execution("t-2", null));
        List<Lease> held = this.store.claimDue("vendas", "v1", "a", 10, 100, 1_000, Set.of());

        List<Lease> lost = this.store.renew(held, 500, 31_000);

        assertThat(lost).isEmpty();
        // past the first lease, within the renewed one
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 2_000, 32_000, Set.of())).isEmpty();
    }

    @Test
    void aLeaseAnotherRunnerTookOverIsReportedLostAndTheOthersAreRenewed() {
        this.store.create(execution("t-1", null));
        this.store.create(execution("t-2", null));
        List<Lease> held = this.store.claimDue("vendas", "v1", "a", 10, 100, 1_000, Set.of());
        // both leases expire; runner b takes one of the executions over before runner a renews
        Lease takenOver = this.store.claimDue("vendas", "v1", "b", 1, 2_000, 32_000, Set.of()).get(0);
        Lease stillHeld = held.stream().filter((lease) -> !lease.taskId().equals(takenOver.taskId())).findFirst()
            .orElseThrow();

        List<Lease> lost = this.store.renew(held, 2_100, 32_100);

        assertThat(lost).extracting(Lease::taskId).containsExactly(takenOver.taskId());
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 2_200, 32_200, Set.of())).isEmpty();
        assertThat(this.store.find(stillHeld.taskId()).orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
    }

    @Test
    void aLeaseWhoseDeliveryEndedIsNotReportedLost() {
        this.store.create(execution("t-1", null));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of()).get(0);
        this.store.complete(lease, "\"done\"", 200);

        assertThat(this.store.renew(List.of(lease), 300, 30_300)).isEmpty();
        assertThat(this.store.find("t-1").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
    }

    @Test
    void renewalNeverHoldsOneExecutionLockedWhileWaitingForAnother() throws Exception {
        this.store.create(execution("parent", null));
        this.store.create(execution("child", "parent"));
        List<Lease> held = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of());
        Lease parent = held.stream().filter((lease) -> lease.taskId().equals("parent")).findFirst().orElseThrow();
        Lease child = held.stream().filter((lease) -> lease.taskId().equals("child")).findFirst().orElseThrow();
        // no retry: a deadlock would be hidden by retrying the renewal that the database chose as its victim
        JdbcExecutionStore onceOnly = new JdbcExecutionStore(this.dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 1, Duration.ofMillis(1), Duration.ofMillis(1)), null);
        try (Connection ending = this.dataSource.getConnection()) {
            // the child's end locks the child's row first, as complete and fail do ...
            ending.setAutoCommit(false);
            lockRow(ending, "child");
            // ... while the runner renews its leases, the parent's first
            CompletableFuture<List<Lease>> renewal = CompletableFuture
                .supplyAsync(() -> onceOnly.renew(List.of(parent, child), 200, 30_200));
            await().atMost(Duration.ofSeconds(5)).until(() -> blockedSessions() > 0);

            // ... and then the parent's row, to wake it: it must not be held by the renewal waiting for the child
            lockRow(ending, "parent");
            ending.commit();

            assertThat(renewal.get(5, TimeUnit.SECONDS)).isEmpty();
        }
    }

    static void lockRow(Connection connection, String taskId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("UPDATE skail_execution SET updated_at = updated_at "
                + "WHERE task_id = ?")) {
            ps.setString(1, taskId);
            ps.executeUpdate();
        }
    }

    private int blockedSessions() throws SQLException {
        return blockedSessions(this.dataSource);
    }

    /** How many sessions of the H2 database wait for a lock another holds. */
    static int blockedSessions(javax.sql.DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS "
                        + "WHERE BLOCKER_ID IS NOT NULL");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static ExecutionRow execution(String taskId, String parentTaskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[\"x\"]", ExecutionStatus.PENDING, null,
                null, 1, 0, 0L, 0, 0, parentTaskId);
    }
}
