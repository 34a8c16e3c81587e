package dev.skail.platform.jdbc;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.Suspend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The embedded store writes what concurrent executions record in one transaction and one sync (group commit), and
 * what one of them does wrong is that one's alone.
 */
class GroupCommitTests {

    @TempDir
    Path directory;

    private final DurableCommitTests.SyncWatchingDataSource dataSource = new DurableCommitTests.SyncWatchingDataSource();

    private JdbcExecutionStore store;

    private final ExecutorService runners = Executors.newFixedThreadPool(12);

    @BeforeEach
    void open() {
        this.store = DurableCommitTests.openFileStore(this.dataSource, this.directory);
    }

    @AfterEach
    void close() throws Exception {
        this.dataSource.release();
        this.runners.shutdownNow();
        this.store.close();
    }

    @Test
    void aLostLeaseInAGroupIsRefusedAloneAndTheOtherStepsAreRecorded() throws Exception {
        List<Lease> leases = running(6);
        Lease holder = running(1, "segurar-").get(0);
        Lease lost = leases.get(5);
        // another runner took pedido-5 over: its lease token is not this one's any more
        this.store.release(lost, 150);
        Lease taken = this.store.claimDue("vendas", "v1", "b", 10, 160, 30_000, Set.of()).get(0);
        assertThat(taken.taskId()).isEqualTo("pedido-5");
        JdbcExecutionStore.Syncs before = this.store.syncs().orElseThrow();

        List<Future<?>> steps = whileTheFirstSyncIsHeld(leases.size(), () -> {
            List<Future<?>> futures = new ArrayList<>();
            for (Lease lease : leases) {
                futures.add(this.runners.submit(() -> this.store.recordStep(lease, charge(lease.taskId(), 0,
                        "150.00"), attempt(lease.taskId(), 0), 200, 30_000)));
            }
            return futures;
        }, holder);

        for (int i = 0; i < 5; i++) {
            steps.get(i).get(10, TimeUnit.SECONDS);
            StepRow step = this.store.history("pedido-" + i).orElseThrow().steps().get(0);
            assertThat(step.name()).isEqualTo("cobrarCartao");
            assertThat(step.result()).isEqualTo("{\"valor\":150.00,\"moeda\":\"BRL\"}");
            assertThat(this.store.history("pedido-" + i).orElseThrow().attempts()).hasSize(1);
        }
        assertThatLeaseLost(steps.get(5));
        assertThat(this.store.history("pedido-5").orElseThrow().steps()).isEmpty();
        assertThat(this.store.history("pedido-5").orElseThrow().attempts()).isEmpty();
        // the new runner of pedido-5 records as if nothing had happened
        this.store.recordStep(taken, charge("pedido-5", 0, "99.90"), null, 300, 30_000);
        assertThat(this.store.history("pedido-5").orElseThrow().steps()).hasSize(1);
        JdbcExecutionStore.Syncs after = this.store.syncs().orElseThrow();
        // the held step; the group: five steps in one commit, the refused one rolled back to its savepoint; the new
        // runner's step
        assertThat(after.writes() - before.writes()).isEqualTo(1 + 5 + 1);
        assertThat(after.commits() - before.commits()).isEqualTo(3);
        assertThat(after.syncs() - before.syncs()).isEqualTo(3);
    }

    @Test
    void stepsSuspensionsAndEndsOfDifferentExecutionsShareOneCommit() throws Exception {
        List<Lease> leases = running(9);
        JdbcExecutionStore.Syncs before = this.store.syncs().orElseThrow();

        List<Future<?>> writes = whileTheFirstSyncIsHeld(8, () -> {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Lease lease = leases.get(i);
                futures.add(this.runners.submit(() -> {
                    switch (lease.taskId()) {
                        case "pedido-0", "pedido-1", "pedido-2" -> this.store.recordStep(lease,
                                charge(lease.taskId(), 0, "12.30"), null, 200, 30_000);
                        case "pedido-3", "pedido-4", "pedido-5" -> this.store.suspend(lease,
                                new Suspend(ExecutionStatus.WAITING, 3_600_200L, Set.of(), Set.of()), 200);
                        default -> this.store.complete(lease, "{\"status\":\"CONFIRMADO\"}", 200);
                    }
                    return null;
                }));
            }
            return futures;
        }, leases.get(8));
        for (Future<?> write : writes) {
            write.get(10, TimeUnit.SECONDS);
        }

        assertThat(this.store.find("pedido-0").orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(this.store.history("pedido-2").orElseThrow().steps()).hasSize(1);
        assertThat(this.store.find("pedido-4").orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(this.store.find("pedido-4").orElseThrow().nextRunAt()).isEqualTo(3_600_200L);
        assertThat(this.store.find("pedido-7").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.store.find("pedido-7").orElseThrow().result()).isEqualTo("{\"status\":\"CONFIRMADO\"}");
        JdbcExecutionStore.Syncs after = this.store.syncs().orElseThrow();
        assertThat(after.writes() - before.writes()).isEqualTo(1 + 8);
        // the held step of pedido-8, then the eight others together
        assertThat(after.commits() - before.commits()).isEqualTo(2);
        assertThat(after.syncs() - before.syncs()).isEqualTo(2);
    }

    @Test
    void aClaimRidesTheNextBatchAndIsToldAtItsCommitBeforeItsSync() throws Exception {
        Lease holder = running(1, "segurar-").get(0);
        Lease writer = running(1, "escrever-").get(0);
        this.store.create(new ExecutionRow("pedido-0", "vendas", "v1", "processarPedido", "[{\"total\":150.00}]",
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        JdbcExecutionStore.Syncs before = this.store.syncs().orElseThrow();
        this.dataSource.holdSyncs();
        this.dataSource.holdSecondSync();
        Future<?> held = this.runners.submit(() -> this.store.recordStep(holder, charge(holder.taskId(), 0, "1.00"),
                null, 200, 30_000));
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // a batch is being written (its sync held) and a step waits for the next one: a claim waits for it too
        Future<?> step = this.runners.submit(() -> this.store.recordStep(writer, charge(writer.taskId(), 0,
                "150.00"), attempt(writer.taskId(), 0), 200, 30_000));
        DurableCommitTests.spinUntil(() -> this.store.writesQueued() >= 1, "the step queued");
        Future<List<Lease>> claim = this.runners.submit(() -> this.store.claimDue("vendas", "v1", "b", 10, 200,
                30_000, Set.of()));
        DurableCommitTests.spinUntil(() -> this.store.writesQueued() >= 2, "the claim queued behind the step");
        this.dataSource.release();
        held.get(10, TimeUnit.SECONDS);

        // the next batch carries both; its sync is held: the claim has its leases, the step is not told yet
        assertThat(this.dataSource.secondSyncEntered.await(10, TimeUnit.SECONDS)).isTrue();
        List<Lease> claimed = claim.get(10, TimeUnit.SECONDS);
        assertThat(claimed).extracting(Lease::taskId).containsExactly("pedido-0");
        assertThat(this.store.find("pedido-0").orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(step.isDone()).isFalse();
        this.dataSource.releaseSecond();
        step.get(10, TimeUnit.SECONDS);
        assertThat(this.store.history(writer.taskId()).orElseThrow().steps()).hasSize(1);
        JdbcExecutionStore.Syncs after = this.store.syncs().orElseThrow();
        // the held step alone, then the step and the claim in one commit
        assertThat(after.commits() - before.commits()).isEqualTo(2);
        assertThat(after.writes() - before.writes()).isEqualTo(1 + 2);
    }

    @Test
    void aClaimWithNoDurableWriteQueuedCommitsAloneWithoutWaitingForTheSyncInProgress() throws Exception {
        Lease holder = running(1, "segurar-").get(0);
        this.store.create(new ExecutionRow("pedido-0", "vendas", "v1", "processarPedido", "[{\"total\":150.00}]",
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        JdbcExecutionStore.Syncs before = this.store.syncs().orElseThrow();
        this.dataSource.holdSyncs();
        Future<?> held = this.runners.submit(() -> this.store.recordStep(holder, charge(holder.taskId(), 0, "1.00"),
                null, 200, 30_000));
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // nothing would lead a next batch: the claim does not wait for the held sync, and rides no batch
        List<Lease> claimed = this.runners.submit(() -> this.store.claimDue("vendas", "v1", "b", 10, 200, 30_000,
                Set.of())).get(10, TimeUnit.SECONDS);
        assertThat(claimed).extracting(Lease::taskId).containsExactly("pedido-0");
        assertThat(held.isDone()).isFalse();
        assertThat(this.store.writesQueued()).isZero();
        // the held step's batch alone carried a write
        assertThat(this.store.syncs().orElseThrow().writes() - before.writes()).isEqualTo(1);
        this.dataSource.release();
        held.get(10, TimeUnit.SECONDS);
    }

    /** Runs {@code queue} while a first step's sync is held, waits until it queued {@code queued} writes, releases. */
    private List<Future<?>> whileTheFirstSyncIsHeld(int queued, java.util.concurrent.Callable<List<Future<?>>> queue,
            Lease... first) throws Exception {
        Lease holder = (first.length > 0) ? first[0] : running(1, "segurar-").get(0);
        this.dataSource.holdSyncs();
        Future<?> held = this.runners.submit(() -> this.store.recordStep(holder, charge(holder.taskId(), 0, "1.00"),
                null, 200, 30_000));
        assertThat(this.dataSource.syncEntered.await(10, TimeUnit.SECONDS)).isTrue();
        List<Future<?>> futures = queue.call();
        DurableCommitTests.spinUntil(() -> this.store.writesQueued() >= queued,
                "the writes waiting for the next group commit");
        this.dataSource.release();
        held.get(10, TimeUnit.SECONDS);
        return futures;
    }

    private List<Lease> running(int count) {
        return running(count, "pedido-");
    }

    private List<Lease> running(int count, String prefix) {
        for (int i = 0; i < count; i++) {
            this.store.create(new ExecutionRow(prefix + i, "vendas", "v1", "processarPedido",
                    "[{\"total\":150.00}]", ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        }
        List<Lease> leases = new ArrayList<>(this.store.claimDue("vendas", "v1", "a", count, 100, 30_000, Set.of()));
        leases.sort(java.util.Comparator.comparing(Lease::taskId));
        assertThat(leases).hasSize(count);
        return leases;
    }

    private static StepRow charge(String taskId, int position, String amount) {
        return new StepRow(taskId, position, StepRow.COMMAND, "cobrarCartao", "[" + amount + "]", StepRow.COMPLETED,
                "{\"valor\":" + amount + ",\"moeda\":\"BRL\"}", null, taskId + "-" + position, 1, 150, 160, null);
    }

    private static AttemptRow attempt(String taskId, int position) {
        return new AttemptRow(taskId, position, "cobrarCartao", 1, 1, 150, 160, "SUCCEEDED", null, "RECORDED", null);
    }

    private static void assertThatLeaseLost(Future<?> step) throws InterruptedException {
        try {
            step.get(10, TimeUnit.SECONDS);
            throw new AssertionError("the step of a lost lease was recorded");
        }
        catch (ExecutionException ex) {
            assertThat(ex.getCause()).isInstanceOf(LeaseLostException.class);
        }
        catch (java.util.concurrent.TimeoutException ex) {
            throw new AssertionError(ex);
        }
    }
}
