package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.skail.ExecutionStatus;
import dev.skail.platform.Lease;
import dev.skail.platform.Suspend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A suspension never misses what it waits for when that arrives while the execution goes to sleep. */
class SuspendingTests {

    private JdbcExecutionStore store;

    private DataSource dataSource;

    @BeforeEach
    void open() {
        this.store = H2TestStore.open("suspend", ";LOCK_TIMEOUT=10000");
        this.dataSource = this.store.dataSource();
    }

    @AfterEach
    void close() throws Exception {
        // closes its pool too
        this.store.close();
    }

    @Test
    void aChildEndingWhileItsParentGoesToSleepOnItWakesTheParent() throws Exception {
        this.store.create(LeaseRenewalTests.execution("parent", null));
        this.store.create(LeaseRenewalTests.execution("child", "parent"));
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
}
