package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * S14 on H2: a step checks that its runner still holds the execution; on an H2 file only this process opens, the
 * execution's row is written only when the step would change it (its lease past half, {@code updated_at} a second
 * behind), otherwise only read; on a database others may open, the step always updates it, under its lock.
 */
class LeaseFenceOnH2Tests {

    /** The lease every call asks for: 30 s, as the runtime's default. */
    private static final long LEASE = 30_000;

    private HikariDataSource dataSource;

    private JdbcExecutionStore store;

    @TempDir
    Path directory;

    @BeforeEach
    void open() {
        // the embedded store: an H2 file only this process opens
        open(H2Urls.durable(H2Urls.PREALLOCATED_FILE + this.directory.resolve("skail") + ";FILE_LOCK=FS"));
    }

    private void open(String url) {
        this.dataSource = new HikariDataSource();
        this.dataSource.setJdbcUrl(url);
        this.store = new JdbcExecutionStore(this.dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), this.dataSource);
        this.store.initialize();
        this.store.create(new ExecutionRow("pedido-1", "vendas", "v1", "processarPedido",
                "[{\"total\":150.00,\"criadoEm\":\"2026-12-02T09:15:30-03:00\"}]", ExecutionStatus.PENDING, null,
                null, 1, 0, 0L, 0, 0, null));
    }

    @AfterEach
    void close() throws Exception {
        this.store.close();
    }

    @Test
    void aStepEarlyInItsLeaseAndWithinTheSecondLeavesTheExecutionRowAsItIs() throws SQLException {
        Lease lease = claim("a", 100);

        this.store.recordStep(lease, step(0), null, 500, 500 + LEASE);
        this.store.recordStep(lease, step(1), null, 900, 900 + LEASE);

        assertThat(this.store.history("pedido-1").orElseThrow().steps()).extracting(StepRow::position)
            .containsExactly(0, 1);
        assertThat(leaseUntil()).isEqualTo(100 + LEASE);
        assertThat(this.store.find("pedido-1").orElseThrow().updatedAt()).isEqualTo(100);
    }

    @Test
    void aStepPastHalfItsLeaseExtendsItSoNoOtherRunnerTakesTheExecution() throws SQLException {
        Lease lease = claim("a", 100);

        this.store.recordStep(lease, step(0), null, 16_000, 16_000 + LEASE);

        assertThat(leaseUntil()).isEqualTo(16_000 + LEASE);
        // past the first lease, within the extended one
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 31_000, 31_000 + LEASE, Set.of())).isEmpty();
    }

    @Test
    void aStepASecondAfterTheLastChangeMovesUpdatedAt() {
        Lease lease = claim("a", 100);

        this.store.recordStep(lease, step(0), null, 1_100, 1_100 + LEASE);

        assertThat(this.store.find("pedido-1").orElseThrow().updatedAt()).isEqualTo(1_100);
    }

    @Test
    void aRunnerWhoseExecutionWasTakenOverRecordsNothing() {
        Lease first = claim("a", 100);
        // its lease ended, runner b took the execution over
        Lease second = this.store.claimDue("vendas", "v1", "b", 10, 100 + LEASE + 1, 200 + 2 * LEASE, Set.of())
            .get(0);

        assertThatExceptionOfType(LeaseLostException.class)
            .isThrownBy(() -> this.store.recordStep(first, step(0), null, 100 + LEASE + 2, 100 + 2 * LEASE));

        assertThat(this.store.history("pedido-1").orElseThrow().steps()).isEmpty();
        this.store.recordStep(second, step(0), null, 100 + LEASE + 3, 100 + 2 * LEASE);
        assertThat(this.store.history("pedido-1").orElseThrow().steps()).hasSize(1);
    }

    @Test
    void aRunnerWhoseLeaseEndedUnclaimedStillHoldsItAndExtendsIt() throws SQLException {
        Lease lease = claim("a", 100);

        this.store.recordStep(lease, step(0), null, 100 + LEASE + 500, 100 + 2 * LEASE + 500);

        assertThat(leaseUntil()).isEqualTo(100 + 2 * LEASE + 500);
        assertThat(this.store.history("pedido-1").orElseThrow().steps()).hasSize(1);
    }

    @Test
    void onADatabaseOthersMayOpenEveryStepUpdatesTheRowUnderItsLock() throws Exception {
        // in memory (other stores of this JVM may open it), as through an H2 server or with AUTO_SERVER: the runtime's
        // own claims are not the only ones, so the step holds the row's lock until it commits
        this.store.close();
        open("jdbc:h2:mem:fence-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        Lease lease = claim("a", 100);

        this.store.recordStep(lease, step(0), null, 500, 500 + LEASE);

        assertThat(leaseUntil()).isEqualTo(500 + LEASE);
    }

    private Lease claim(String owner, long now) {
        return this.store.claimDue("vendas", "v1", owner, 10, now, now + LEASE, Set.of()).get(0);
    }

    private static StepRow step(int position) {
        return new StepRow("pedido-1", position, StepRow.COMMAND, "cobrarCartao",
                "[\"3f1c2a9e-0000-4000-8000-000000000001\",150.00]", StepRow.COMPLETED,
                "{\"autorizacao\":\"A-7731\",\"valor\":150.00}", null, "key-" + position, 1, 150, 160, null);
    }

    private long leaseUntil() throws SQLException {
        try (Connection connection = this.dataSource.getConnection();
                PreparedStatement ps = connection.prepareStatement(
                        "SELECT lease_until FROM skail_execution WHERE task_id = 'pedido-1'");
                ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }

}
