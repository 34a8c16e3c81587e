package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.Suspend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A suspension never misses what it waits for when that arrives while the execution goes to sleep. */
class SuspendingTests {

    private HikariDataSource dataSource;

    private JdbcExecutionStore store;

    @BeforeEach
    void open() {
        this.dataSource = new HikariDataSource();
        this.dataSource.setJdbcUrl("jdbc:h2:mem:suspend-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        this.store = new JdbcExecutionStore(this.dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), this.dataSource);
        this.store.initialize();
    }

    @AfterEach
    void close() throws Exception {
        this.store.close();
        this.dataSource.close();
    }

    @Test
    void aChildEndingWhileItsParentGoesToSleepOnItWakesTheParent() throws Exception {
        this.store.create(execution("parent", null));
        this.store.create(execution("child", "parent"));
        List<Lease> held = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, Set.of());
        Lease parent = held.stream().filter((lease) -> lease.taskId().equals("parent")).findFirst().orElseThrow();
        try (Connection ending = this.dataSource.getConnection()) {
            // the child ends in a transaction that holds the parent's row (as its end's wake-up of the parent does)
            ending.setAutoCommit(false);
            LeaseRenewalTests.lockRow(ending, "parent");
            try (PreparedStatement ps = ending.prepareStatement("UPDATE skail_execution SET status = 'COMPLETED' "
                    + "WHERE task_id = 'child'")) {
                ps.executeUpdate();
            }
            // meanwhile the parent goes to sleep until its child ends, with no timeout
            CompletableFuture<Void> suspended = CompletableFuture.runAsync(() -> this.store.suspend(parent,
                    new Suspend(ExecutionStatus.WAITING, null, Set.of(), Set.of("child")), 200));
            await().atMost(Duration.ofSeconds(5)).until(() -> LeaseRenewalTests.blockedSessions(this.dataSource) > 0);
            // the child's end commits while the parent is still RUNNING: its wake-up finds nothing WAITING
            ending.commit();
            suspended.get(5, TimeUnit.SECONDS);
        }

        // the parent sleeps, due at once: the next claim takes it (a suspension that read before it locked the row
        // found the child running and slept with no time to wake)
        assertThat(this.store.find("parent").orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 300, 30_300, Set.of())).extracting(Lease::taskId)
            .containsExactly("parent");
    }

    private static ExecutionRow execution(String taskId, String parentTaskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[\"x\"]", ExecutionStatus.PENDING, null,
                null, 1, 0, 0L, 0, 0, parentTaskId);
    }
}
