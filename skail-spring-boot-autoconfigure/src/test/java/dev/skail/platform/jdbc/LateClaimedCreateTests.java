package dev.skail.platform.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.StoreDeadline;
import dev.skail.platform.StoreUnavailableException;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A trigger whose execution is created claimed (a worker slot was free) gives up when its request's deadline passes
 * while the batch that holds its create is still being committed; it then gives the lease back. The batch commits
 * after: the release must still find the execution and give it back, so that it runs at the next poll, not a lease
 * later (before, the release ran at once, found no execution yet, and the execution waited for its lease to expire).
 */
class LateClaimedCreateTests {

    private GatedDataSource dataSource;

    private JdbcExecutionStore store;

    @BeforeEach
    void open() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:late-create-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1");
        this.dataSource = new GatedDataSource(h2);
        this.store = new JdbcExecutionStore(this.dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        this.store.initialize();
    }

    @AfterEach
    void openTheGate() {
        this.dataSource.open();
    }

    @Test
    void aClaimedCreateCommittedAfterItsCallerGaveUpIsGivenBackNotLeftToItsLease() throws Exception {
        GroupCommit group = java.util.Objects.requireNonNull(this.store.groupCommit());
        this.dataSource.closeGate();
        // batch 0: one write, its commit held
        Thread first = start(() -> this.store.create(execution("pedido-1"), List.of()));
        DurableCommitTests.spinUntil(() -> this.dataSource.commitsWaiting() == 1, "the first batch commits");
        // queued behind it: another write, then the trigger's claimed create with a request deadline
        Thread second = start(() -> this.store.create(execution("pedido-2"), List.of()));
        DurableCommitTests.spinUntil(() -> group.queued() == 1, "the second write queued");
        Lease lease = new Lease("pedido-7", "instance-a", "token-7");
        AtomicReference<Throwable> triggerFailure = new AtomicReference<>();
        Thread trigger = new Thread(() -> {
            try {
                StoreDeadline.within(Duration.ofSeconds(3),
                        () -> this.store.createClaimed(execution("pedido-7"), List.of(), lease, 60_000));
            }
            catch (Throwable ex) {
                triggerFailure.set(ex);
            }
        });
        trigger.start();
        DurableCommitTests.spinUntil(() -> group.queued() == 2, "the trigger's create queued");
        // batch 0 commits; batch 1 (the second write and the trigger's create) is written, its commit held past the
        // trigger's deadline
        this.dataSource.letOneCommitThrough();
        first.join(10_000);
        DurableCommitTests.spinUntil(() -> this.dataSource.commitsWaiting() == 1 && group.queued() == 0,
                "the second batch, with the trigger's create, commits");
        assertThat(trigger.isAlive()).as("the trigger still waits for its deadline").isTrue();
        trigger.join(10_000);
        assertThat(trigger.isAlive()).isFalse();
        assertThat(triggerFailure.get()).isInstanceOf(StoreUnavailableException.class);

        // the runtime gives the lease back while the create is still to commit
        Thread release = start(() -> this.store.release(lease, 1_000));
        DurableCommitTests.spinUntil(() -> group.queued() == 1 || this.dataSource.commitsWaiting() == 2,
                "the release waits for the store");
        this.dataSource.open();
        second.join(10_000);
        release.join(10_000);

        ExecutionRow created = this.store.find("pedido-7").orElseThrow();
        assertThat(created.status()).isEqualTo(ExecutionStatus.PENDING);
        // due now: another poll takes it at once, well before the lease it was created under would have expired
        List<Lease> claimed = this.store.claimDue("vendas", "v1", "instance-b", 10, 2_000, 62_000, Set.of());
        assertThat(claimed).extracting(Lease::taskId).containsExactlyInAnyOrder("pedido-1", "pedido-2", "pedido-7");
    }

    private static Thread start(Runnable work) {
        Thread thread = new Thread(work);
        thread.start();
        return thread;
    }

    private static ExecutionRow execution(String taskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[\"x\"]", ExecutionStatus.PENDING, null,
                null, 1, 0, 0L, 0, 0, null);
    }

    /** Connections whose commits wait, while the gate is closed, for the test to let each through. */
    static final class GatedDataSource extends DelegatingDataSource {

        private final Semaphore permits = new Semaphore(0);

        private final AtomicInteger waiting = new AtomicInteger();

        private volatile boolean gated;

        GatedDataSource(DataSource target) {
            super(target);
        }

        void closeGate() {
            this.gated = true;
        }

        void letOneCommitThrough() {
            this.permits.release();
        }

        void open() {
            this.gated = false;
            this.permits.release(1_000);
        }

        int commitsWaiting() {
            return this.waiting.get();
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = obtainTargetDataSource().getConnection();
            return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] { Connection.class }, (proxy, method, args) -> {
                        if (method.getName().equals("commit") && this.gated) {
                            this.waiting.incrementAndGet();
                            try {
                                if (!this.permits.tryAcquire(10, TimeUnit.SECONDS)) {
                                    throw new SQLException("the test never let this commit through");
                                }
                            }
                            finally {
                                this.waiting.decrementAndGet();
                            }
                        }
                        try {
                            return method.invoke(connection, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }
    }
}
