package dev.skail.platform.jdbc;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The store: one claim at a time (S14), fenced writes, schema versioning, id uniqueness (S13). */
class JdbcExecutionStoreTests {

    JdbcExecutionStore store;

    @BeforeEach
    void open() {
        this.store = openStore();
    }

    /** A store on a fresh database of its own. */
    JdbcExecutionStore openStore() {
        return H2TestStore.open("store", "");
    }

    @AfterEach
    void close() throws Exception {
        this.store.close();
    }

    @Test
    void theEmbeddedStoreDoesNotAnnounceEndsOnlyPostgreSqlDoes() {
        // one process uses H2 alone: the ends it hears are its own
        assertThat(this.store.announcesEnds()).isEqualTo(this instanceof JdbcExecutionStoreOnPostgreSqlTests);
    }

    @Test
    void initializeTwiceKeepsTheSchemaAndTheData() {
        this.store.create(execution("t-1", 0));

        this.store.initialize();

        assertThat(this.store.find("t-1")).isPresent();
    }

    @Test
    void anExecutionIsReadWithItsTagsInOneGo() {
        this.store.create(new ExecutionRow("pedido-1", "vendas", "v1", "processarPedido",
                "[{\"total\":150.00,\"em\":\"2026-12-05T10:15:30-03:00\"}]", ExecutionStatus.PENDING, null, null,
                1, 0, 0L, 0, 0, null), List.of(new dev.skail.platform.Tag("pedido", "P-2"),
                        new dev.skail.platform.Tag("cliente", "C-9"), new dev.skail.platform.Tag("pedido", "P-1")));
        this.store.create(execution("t-2", 0));

        assertThat(this.store.findTagged("pedido-1")).hasValueSatisfying((found) -> {
            assertThat(found.execution()).isEqualTo(this.store.find("pedido-1").orElseThrow());
            assertThat(found.execution().arguments())
                .isEqualTo("[{\"total\":150.00,\"em\":\"2026-12-05T10:15:30-03:00\"}]");
            assertThat(found.tags()).containsExactly(new dev.skail.platform.Tag("cliente", "C-9"),
                    new dev.skail.platform.Tag("pedido", "P-1"), new dev.skail.platform.Tag("pedido", "P-2"));
        });
        assertThat(this.store.findTagged("t-2")).hasValueSatisfying((found) -> assertThat(found.tags()).isEmpty());
        assertThat(this.store.findTagged("t-3")).isEmpty();
    }

    /** Whether the end of an execution tells it as written (PostgreSQL), or nothing (H2). */
    boolean endTellsTheExecution() {
        return false;
    }

    @Test
    void anEndTellsTheExecutionExactlyAsItIsReadAfterIt() {
        this.store.create(new ExecutionRow("pedido-1", "vendas", "v1", "processarPedido",
                "[{\"total\":150.00,\"em\":\"2026-12-05T10:15:30-03:00\"}]", ExecutionStatus.PENDING, null, null,
                1, 0, 0L, 0, 0, null), List.of(new dev.skail.platform.Tag("pedido", "P-2"),
                        new dev.skail.platform.Tag("cliente", "C-9")));
        this.store.create(execution("t-2", 0));
        List<Lease> leases = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_100, java.util.Set.of());
        Lease pedido = leases.stream().filter((l) -> l.taskId().equals("pedido-1")).findFirst().orElseThrow();
        Lease other = leases.stream().filter((l) -> l.taskId().equals("t-2")).findFirst().orElseThrow();
        this.store.tag(pedido, new dev.skail.platform.Tag("pedido", "P-1"), 150, 30_150);

        dev.skail.platform.TaggedExecution told = this.store.completeAndTell(pedido,
                "{\"total\":150.50,\"pago\":\"2026-12-05T10:15:31.250-03:00\"}", 200);
        dev.skail.platform.TaggedExecution untagged = this.store.completeAndTell(other, null, 210);

        if (!endTellsTheExecution()) {
            assertThat(told).isNull();
            assertThat(untagged).isNull();
        }
        else {
            assertThat(told).isEqualTo(this.store.findTagged("pedido-1").orElseThrow());
            assertThat(told.execution().status()).isEqualTo(ExecutionStatus.COMPLETED);
            assertThat(told.execution().result()).isEqualTo("{\"total\":150.50,\"pago\":\"2026-12-05T10:15:31.250-03:00\"}");
            assertThat(told.tags()).containsExactly(new dev.skail.platform.Tag("cliente", "C-9"),
                    new dev.skail.platform.Tag("pedido", "P-1"), new dev.skail.platform.Tag("pedido", "P-2"));
            assertThat(untagged).isEqualTo(this.store.findTagged("t-2").orElseThrow());
            assertThat(untagged.tags()).isEmpty();
        }
        assertThat(this.store.find("pedido-1").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
        // a lease already ended tells nothing: it is lost
        assertThatExceptionOfType(dev.skail.platform.LeaseLostException.class)
            .isThrownBy(() -> this.store.completeAndTell(pedido, "1", 300));
    }

    @Test
    void anExecutionReadWhileAnotherTransactionChangesItIsReadAsCommittedOnceThatCommits() throws Exception {
        this.store.create(execution("t-1", 0));
        try (java.sql.Connection other = this.store.dataSource().getConnection()) {
            other.setAutoCommit(false);
            try (java.sql.Statement statement = other.createStatement()) {
                statement.executeUpdate("UPDATE skail_execution SET status = 'RUNNING' WHERE task_id = 't-1'");
            }
            // read while the change is not committed: as it was
            assertThat(this.store.findTagged("t-1").orElseThrow().execution().status())
                .isEqualTo(ExecutionStatus.PENDING);
            other.commit();
        }
        // nothing changes after the commit: a result kept from the read before must not be given again
        assertThat(this.store.findTagged("t-1").orElseThrow().execution().status())
            .isEqualTo(ExecutionStatus.RUNNING);
        assertThat(this.store.find("t-1").orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
    }

    @Test
    void sameIdIsCreatedOnceAndTheExistingExecutionIsReturned() {
        assertThat(this.store.create(execution("t-1", 0))).isEmpty();

        Optional<ExecutionRow> again = this.store.create(execution("t-1", 5));

        assertThat(again).hasValueSatisfying((row) -> assertThat(row.createdAt()).isZero());
    }

    @Test
    void aClaimedCreateRetriedAfterALostAcknowledgementIsStillItsCallersToRun() {
        Lease lease = new Lease("t-1", "a", "token-1");
        assertThat(this.store.createClaimed(execution("t-1", 0), List.of(), lease, 30_000).claimed()).isTrue();

        // the same create again (a retry after its commit's acknowledgement was lost) finds its own row
        ExecutionStore.Created again = this.store.createClaimed(execution("t-1", 0), List.of(), lease, 30_000);
        assertThat(again.claimed()).isTrue();
        assertThat(again.existing()).isEmpty();

        // another trigger's claimed create of the same id is not
        ExecutionStore.Created other = this.store.createClaimed(execution("t-1", 5), List.of(),
                new Lease("t-1", "b", "token-2"), 30_000);
        assertThat(other.claimed()).isFalse();
        assertThat(other.existing()).hasValueSatisfying((row) -> assertThat(row.status())
            .isEqualTo(ExecutionStatus.RUNNING));
        // and the runner of the first can record
        this.store.recordStep(lease, new StepRow("t-1", 0, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "{\"reserva\":\"r-1\"}", null, "t-1-0", 1, 10, 20, null), null, 20, 30_000);
        assertThat(this.store.history("t-1").orElseThrow().steps()).hasSize(1);
    }

    @Test
    void aDueExecutionIsClaimedByOneOwnerOnly() {
        this.store.create(execution("t-1", 0));

        List<Lease> first = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_100, java.util.Set.of());
        List<Lease> second = this.store.claimDue("vendas", "v1", "b", 10, 100, 30_100, java.util.Set.of());

        assertThat(first).extracting(Lease::taskId).containsExactly("t-1");
        assertThat(second).isEmpty();
        assertThat(this.store.find("t-1").orElseThrow().status()).isEqualTo(ExecutionStatus.RUNNING);
    }

    @Test
    void executionsTheRunnerIsRunningAreNotClaimedAgainEvenWhenTheirLeaseLooksExpired() {
        this.store.create(execution("t-1", 0));
        this.store.create(execution("t-2", 0));
        String running = this.store.claimDue("vendas", "v1", "a", 1, 100, 1_000, java.util.Set.of()).get(0).taskId();
        String other = running.equals("t-1") ? "t-2" : "t-1";

        // the clock jumped past the lease (virtual time): it looks expired, but runner a is still running it
        List<Lease> again = this.store.claimDue("vendas", "v1", "a", 10, 5_000, 35_000, java.util.Set.of(running));

        assertThat(again).extracting(Lease::taskId).containsExactly(other);
    }

    @Test
    void otherVersionsExecutionsAreNotClaimed() {
        this.store.create(execution("t-1", 0));

        assertThat(this.store.claimDue("vendas", "v2", "a", 10, 100, 30_100, java.util.Set.of())).isEmpty();
    }

    @Test
    void runnerThatLostItsLeaseCannotRecord() {
        this.store.create(execution("t-1", 0));
        Lease stale = this.store.claimDue("vendas", "v1", "a", 10, 100, 1_000, java.util.Set.of()).get(0);
        // the lease expires; another runner takes the execution over
        Lease current = this.store.claimDue("vendas", "v1", "b", 10, 2_000, 32_000, java.util.Set.of()).get(0);

        assertThatExceptionOfType(LeaseLostException.class)
            .isThrownBy(() -> this.store.recordStep(stale, step("t-1", 0), attempt("t-1", 0), 2_100, 32_100));
        assertThat(this.store.renew(List.of(stale, current), 2_200, 32_200)).containsExactly(stale);

        this.store.recordStep(current, step("t-1", 0), attempt("t-1", 0), 2_100, 32_100);
        assertThat(this.store.history("t-1").orElseThrow().steps()).hasSize(1);
    }

    @Test
    void aStepIsRecordedOnceAtItsPosition() {
        this.store.create(execution("t-1", 0));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, java.util.Set.of()).get(0);
        this.store.recordStep(lease, step("t-1", 0), attempt("t-1", 0), 200, 30_000);
        StepRow other = new StepRow("t-1", 0, StepRow.COMMAND, "liberarEstoque", "[]", StepRow.COMPLETED, "\"ok\"",
                null, "key", 1, 150, 160, null);

        // the same step again (a retry whose first commit went through) is the step recorded already
        this.store.recordStep(lease, step("t-1", 0), attempt("t-1", 0), 300, 30_000);
        assertThatExceptionOfType(StoreStatementException.class)
            .isThrownBy(() -> this.store.recordStep(lease, other, null, 300, 30_000))
            .withMessageContaining("COMMAND 'reservarEstoque' COMPLETED, not COMMAND 'liberarEstoque' COMPLETED");
        assertThat(this.store.history("t-1").orElseThrow().steps()).containsExactly(step("t-1", 0));
    }

    @Test
    void aPendingStepIsCompletedAtItsPositionAndAStepTakenByAnotherIsRefused() {
        this.store.create(execution("t-1", 0));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, java.util.Set.of()).get(0);
        StepRow pending = new StepRow("t-1", 0, StepRow.CHILD, "processarPedido", "[\"x\"]", StepRow.PENDING, null,
                null, "key-0", 1, 200, 200, "t-1-0");
        this.store.startChild(lease, pending, new ExecutionRow("t-1-0", "vendas", "v1", "processarPedido", "[\"x\"]",
                ExecutionStatus.PENDING, null, null, 1, 0, 200L, 200, 200, "t-1"), List.of(), 200, 30_000);
        StepRow completed = new StepRow("t-1", 0, StepRow.CHILD, "processarPedido", "[\"x\"]", StepRow.COMPLETED,
                "{\"total\":1234.50}", null, "key-0", 1, 200, 900, "t-1-0");

        this.store.recordStep(lease, completed, null, 900, 30_000);

        assertThat(this.store.history("t-1").orElseThrow().steps()).containsExactly(completed);
        assertThatExceptionOfType(StoreStatementException.class)
            .isThrownBy(() -> this.store.recordStep(lease, step("t-1", 0), attempt("t-1", 0), 950, 30_000))
            .withMessageContaining("position 0 already holds CHILD 'processarPedido' COMPLETED");
    }

    @Test
    void theRunningChildrenOfAnExecutionAreItsChildStepsNotEndedAndACancellationInAChildsPlaceKeepsIt() {
        this.store.create(execution("pedido-1", 0));
        this.store.create(execution("pedido-2", 0));
        Lease parent = claimed(100).get("pedido-1");
        startChild(parent, 0, "pedido-1:0");
        startChild(parent, 1, "pedido-1:1");
        startChild(parent, 2, "pedido-1:2");
        Map<String, Lease> children = claimed(300);
        // the first child starts a child of its own: a grandchild of pedido-1, not its child
        startChild(children.get("pedido-1:0"), 0, "pedido-1:0:0");
        this.store.complete(children.get("pedido-1:1"), "\"ok\"", 400);
        // the function sees its cancellation while it waits for the third child: the CANCEL step takes its place
        this.store.recordCancel(parent, new StepRow("pedido-1", 2, StepRow.CANCEL, "cancel", "[]", StepRow.FAILED,
                null, "{}", "key-2", 1, 500, 500, "pedido-1:2"), 500, 30_500);

        assertThat(this.store.runningChildren("pedido-1")).containsExactly("pedido-1:0", "pedido-1:2");
        assertThat(this.store.runningChildren("pedido-1:0")).containsExactly("pedido-1:0:0");
        assertThat(this.store.runningChildren("pedido-2")).isEmpty();
        assertThat(this.store.runningChildren("unknown")).isEmpty();
    }

    /** Claims every execution due at {@code now}, by task id. */
    private Map<String, Lease> claimed(long now) {
        return this.store.claimDue("vendas", "v1", "a", 10, now, now + 30_000, java.util.Set.of()).stream()
            .collect(Collectors.toMap(Lease::taskId, (lease) -> lease));
    }

    /** A PENDING child step of the lease's execution and the child it starts, as {@code ChildStep} writes them. */
    private void startChild(Lease lease, int position, String childId) {
        this.store.startChild(lease, new StepRow(lease.taskId(), position, StepRow.CHILD, "reservarEstoque", "[]",
                StepRow.PENDING, null, null, "key-" + position, 1, 200, 200, childId), new ExecutionRow(childId,
                        "vendas", "v1", "reservarEstoque", "[]", ExecutionStatus.PENDING, null, null, 1, 0, 200L, 200,
                        200, lease.taskId()), List.of(), 200, 30_200);
    }

    @Test
    void updatedAtFollowsTheStepsToTheSecondAndARenewalIsNotAChange() {
        this.store.create(execution("t-1", 0));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, java.util.Set.of()).get(0);
        assertThat(this.store.find("t-1").orElseThrow().updatedAt()).isEqualTo(100);

        // within a second of the last change: the execution's indexed columns stay as they are
        this.store.recordStep(lease, step("t-1", 0), attempt("t-1", 0), 600, 30_600);
        assertThat(this.store.find("t-1").orElseThrow().updatedAt()).isEqualTo(100);
        this.store.recordStep(lease, step("t-1", 1), attempt("t-1", 1), 1_100, 31_100);
        assertThat(this.store.find("t-1").orElseThrow().updatedAt()).isEqualTo(1_100);
        assertThat(this.store.renew(List.of(lease), 9_000, 39_000)).isEmpty();
        assertThat(this.store.find("t-1").orElseThrow().updatedAt()).isEqualTo(1_100);

        // a change of status moves it at once
        this.store.complete(lease, "\"ok\"", 9_100);
        assertThat(this.store.find("t-1").orElseThrow().updatedAt()).isEqualTo(9_100);
    }

    @Test
    void aCommandsSuccessfulAttemptIsKeptInItsStepsRowAndComesBackAsTheAttemptRecorded() throws Exception {
        this.store.create(execution("t-1", 0));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, java.util.Set.of()).get(0);
        // position 0 succeeds at once; position 2 fails once (retried), then succeeds, written with the step kept
        // back before it; position 3 failed for good in function attempt 1 and succeeds in function attempt 2
        AttemptRow first = attempt("t-1", 0);
        this.store.recordStep(lease, step("t-1", 0), first, 160, 30_000);
        AttemptRow failed = new AttemptRow("t-1", 2, "cobrarCartao", 1, 1, 170, 180, "FAILED",
                "{\"type\":\"org.springframework.web.client.HttpServerErrorException$ServiceUnavailable\"}", "RETRY",
                1_000L);
        this.store.recordAttempt(lease, failed, 180, 30_000);
        StepRow charged = new StepRow("t-1", 2, StepRow.COMMAND, "cobrarCartao", "[{\"valor\":1234.50}]",
                StepRow.COMPLETED, "{\"cobrado\":\"2026-12-02T09:15:30.250-03:00\"}", null, "t-1-2", 1, 1_200, 1_250,
                null);
        AttemptRow retried = new AttemptRow("t-1", 2, "cobrarCartao", 1, 2, 1_200, 1_250, "SUCCEEDED", null,
                "RECORDED", null);
        this.store.recordSteps(lease, List.of(new StepRow("t-1", 1, StepRow.NOW, "now", "[]", StepRow.COMPLETED,
                "1200", null, "t-1-1", 1, 1_200, 1_200, null), charged), retried, 1_250, 30_000);
        AttemptRow gaveUp = new AttemptRow("t-1", 3, "emitirNota", 1, 1, 1_300, 1_310, "FAILED", "{}", "GIVE_UP", null);
        this.store.recordAttempt(lease, gaveUp, 1_310, 30_000);
        AttemptRow again = new AttemptRow("t-1", 3, "emitirNota", 2, 1, 2_000, 2_040, "SUCCEEDED", null, "RECORDED",
                null);
        this.store.recordStep(lease, new StepRow("t-1", 3, StepRow.COMMAND, "emitirNota", "[]", StepRow.COMPLETED,
                "\"NF-1\"", null, "t-1-3", 2, 2_000, 2_040, null), again, 2_040, 30_000);

        // the failures are rows; each success is its step's row, and comes back as the attempt it was
        assertThat(rows("skail_attempt")).isEqualTo(2);
        assertThat(this.store.history("t-1").orElseThrow().attempts()).containsExactly(first, failed, retried, gaveUp,
                again);
    }

    @Test
    void aSuccessfulAttemptStoredAsARowComesBackOnceOneUnlikeItsStepIsARowAndOneMisnumberedIsRefused() throws Exception {
        this.store.create(execution("t-1", 0));
        Lease lease = this.store.claimDue("vendas", "v1", "a", 10, 100, 30_000, java.util.Set.of()).get(0);
        // a store written before successes were kept in their steps' rows has the attempt as a row
        this.store.recordAttempt(lease, attempt("t-1", 0), 160, 30_000);
        this.store.recordStep(lease, step("t-1", 0), attempt("t-1", 0), 160, 30_000);
        // an attempt that is not what its step says (here: it started before the step's start) is written as given
        AttemptRow earlier = new AttemptRow("t-1", 1, "reservarEstoque", 1, 1, 140, 160, "SUCCEEDED", null,
                "RECORDED", null);
        this.store.recordStep(lease, step("t-1", 1), earlier, 160, 30_000);
        // a success numbered as if an attempt stored before it had not been made is refused, step and all
        AttemptRow failed = new AttemptRow("t-1", 2, "reservarEstoque", 1, 1, 140, 150, "FAILED", "{}", "RETRY", 10L);
        this.store.recordAttempt(lease, failed, 150, 30_000);
        assertThatExceptionOfType(StoreStatementException.class)
            .isThrownBy(() -> this.store.recordStep(lease, step("t-1", 2), attempt("t-1", 2), 160, 30_000))
            .withMessageContaining("refused to record attempt 1 of function attempt 1 at position 2 of 't-1': it is "
                    + "recorded already as FAILED/RETRY");

        assertThat(rows("skail_attempt")).isEqualTo(3);
        assertThat(this.store.history("t-1").orElseThrow().steps()).extracting(StepRow::position).containsExactly(0, 1);
        assertThat(this.store.history("t-1").orElseThrow().attempts()).containsExactly(attempt("t-1", 0), earlier,
                failed);
    }

    private long rows(String table) throws java.sql.SQLException {
        try (java.sql.Connection connection = this.store.dataSource().getConnection();
                java.sql.Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static ExecutionRow execution(String taskId, long createdAt) {
        return new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[\"x\"]", ExecutionStatus.PENDING, null,
                null, 1, 0, createdAt, createdAt, createdAt, null);
    }

    private static StepRow step(String taskId, int position) {
        return new StepRow(taskId, position, StepRow.COMMAND, "reservarEstoque", "[]", StepRow.COMPLETED, "\"ok\"", null,
                "key", 1, 150, 160, null);
    }

    private static AttemptRow attempt(String taskId, int position) {
        return new AttemptRow(taskId, position, "reservarEstoque", 1, 1, 150, 160, "SUCCEEDED", null, "RECORDED", null);
    }
}
