package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.Suspend;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link JdbcExecutionStoreTests} on PostgreSQL, where a new step (fence, step and attempt together), a trigger without
 * tags (insert and notification) and an end (fenced update, parent's wake-up and its notification; the end is announced
 * after its commit) are one statement each and
 * everything else takes the general path: each test in a schema of its own. The notifications themselves are
 * exercised by the semantics suite's run on PostgreSQL (results across instances, children waking their parent).
 * A step while the lease is fresh locks the execution's row rather than writing a new version of it.
 */
class JdbcExecutionStoreOnPostgreSqlTests extends JdbcExecutionStoreTests {

    private final String schema = "store_" + UUID.randomUUID().toString().replace("-", "");

    private HikariDataSource pool;

    @Override
    JdbcExecutionStore openStore() {
        this.pool = new HikariDataSource();
        this.pool.setJdbcUrl(PostgreSqlForTests.url());
        this.pool.setSchema(this.schema);
        this.pool.setMaximumPoolSize(3);
        JdbcExecutionStore store = new JdbcExecutionStore(this.pool, SqlDialect.POSTGRESQL,
                new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null,
                this.schema, true);
        store.initialize();
        return store;
    }

    @Override
    boolean endTellsTheExecution() {
        return true;
    }

    @Test
    void aStepWhileTheLeaseIsFreshLocksTheExecutionsRowAndLeavesItAsItWas() throws SQLException {
        // an order of a few items as the execution's arguments: a new version of the row would copy all of it
        Lease lease = claimed("[" + "\"item\",".repeat(200) + "\"fim\"]");
        String version = rowVersion("t-1");

        // half a second later: the lease has 29.5 s of 30 left, updated_at is within the second
        this.store.recordStep(lease, new StepRow("t-1", 0, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "\"ok\"", null, "key-0", 1, 550, 600, null), null, 600, 30_600);

        assertThat(this.store.history("t-1").orElseThrow().steps()).extracting(StepRow::position).containsExactly(0);
        assertThat(rowVersion("t-1")).isEqualTo(version);
        assertThat(leaseUntil("t-1")).isEqualTo(30_100);
    }

    @Test
    void aHistoryIsReadInOneRoundTripWithEachOfItsParts() throws SQLException {
        Lease lease = claimed("[{\"valor\":1234.50,\"em\":\"2026-12-06T09:15:30-03:00\"}]");
        dev.skail.platform.AttemptRow failed = new dev.skail.platform.AttemptRow("t-1", 0, "cobrarCartao", 1, 1, 150,
                160, "FAILED", "{\"type\":\"org.springframework.web.client.HttpServerErrorException$ServiceUnavailable\"}",
                "RETRY", 1_000L);
        this.store.recordAttempt(lease, failed, 160, 30_100);
        StepRow charged = new StepRow("t-1", 0, StepRow.COMMAND, "cobrarCartao", "[{\"valor\":1234.50}]",
                StepRow.COMPLETED, "{\"cobrado\":\"2026-12-06T09:15:31.250-03:00\"}", null, "t-1-0", 1, 1_160,
                1_200, null);
        dev.skail.platform.AttemptRow succeeded = new dev.skail.platform.AttemptRow("t-1", 0, "cobrarCartao", 1, 2,
                1_160, 1_200, "SUCCEEDED", null, "RECORDED", null);
        this.store.recordStep(lease, charged, succeeded, 1_200, 30_100);
        this.store.fire("t-1", "pagamentoAprovado", "{\"valor\":1234.50}", "e-1", 1_300);
        AtomicInteger statements = new AtomicInteger();
        JdbcExecutionStore counted = countingStatements(statements);

        dev.skail.platform.StoredHistory history = counted.history("t-1").orElseThrow();

        assertThat(statements).hasValue(1);
        assertThat(history.execution().arguments()).isEqualTo("[{\"valor\":1234.50,\"em\":\"2026-12-06T09:15:30-03:00\"}]");
        assertThat(history.execution().status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(history.steps()).containsExactly(charged);
        assertThat(history.attempts()).containsExactly(failed, succeeded);
        assertThat(history.events()).singleElement().satisfies((event) -> {
            assertThat(event.name()).isEqualTo("pagamentoAprovado");
            assertThat(event.payload()).isEqualTo("{\"valor\":1234.50}");
            assertThat(event.firedAt()).isEqualTo(1_300);
        });
        assertThat(counted.history("nenhum")).isEmpty();
    }

    @Test
    void stepsRecordedTogetherWhileTheLeaseIsFreshLockTheRowToo() throws SQLException {
        Lease lease = claimed("[]");
        String version = rowVersion("t-1");

        // the general path (a transaction): a delay kept back and the command after it
        this.store.recordSteps(lease, List.of(new StepRow("t-1", 0, StepRow.DELAY, "delay", "[1000]",
                StepRow.COMPLETED, null, null, "key-0", 1, 200, 400, null), new StepRow("t-1", 1, StepRow.COMMAND,
                        "reservarEstoque", "[]", StepRow.COMPLETED, "\"ok\"", null, "key-1", 1, 500, 600, null)),
                null, 600, 30_600);

        assertThat(this.store.history("t-1").orElseThrow().steps()).extracting(StepRow::position)
            .containsExactly(0, 1);
        assertThat(rowVersion("t-1")).isEqualTo(version);
    }

    @Test
    void aDelayKeptBackAndTheCommandAfterItAreOneStatementWhileTheLeaseIsFreshAllOrNothing() throws SQLException {
        Lease slept = claimed("[{\"valor\":150.00,\"em\":\"2026-12-06T09:15:30-03:00\"}]");
        StepRow pending = new StepRow("t-1", 0, StepRow.DELAY, "delay", "[1000]", StepRow.PENDING, null, null,
                "key-0", 1, 200, 200, null);
        this.store.suspend(slept, List.of(pending), new Suspend(ExecutionStatus.WAITING, 1_200L, Set.of(), Set.of()),
                200, 30_100);
        Lease woken = this.store.claimDue("vendas", "v1", "b", 10, 1_300, 31_300, Set.of()).get(0);
        String version = rowVersion("t-1");
        StepRow delay = new StepRow("t-1", 0, StepRow.DELAY, "delay", "[1000]", StepRow.COMPLETED, null, null,
                "key-0", 1, 200, 1_300, null);
        StepRow charged = new StepRow("t-1", 1, StepRow.COMMAND, "cobrarCartao", "[{\"valor\":150.00}]",
                StepRow.COMPLETED, "{\"cobrado\":\"2026-12-06T09:15:31.250-03:00\"}", null, "key-1", 1, 1_310,
                1_320, null);
        AttemptRow succeeded = new AttemptRow("t-1", 1, "cobrarCartao", 1, 1, 1_310, 1_320, "SUCCEEDED", null,
                "RECORDED", null);
        AtomicInteger statements = new AtomicInteger();
        JdbcExecutionStore counted = countingStatements(statements);

        // the lease it slept with is no longer held: nothing written, the delay still PENDING
        assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> counted.recordSteps(slept,
                List.of(delay, charged), succeeded, 1_320, 31_320));
        assertThat(this.store.history("t-1").orElseThrow().steps()).containsExactly(pending);

        statements.set(0);
        counted.recordSteps(woken, List.of(delay, charged), succeeded, 1_320, 31_300);

        assertThat(statements).hasValue(1);
        dev.skail.platform.StoredHistory history = this.store.history("t-1").orElseThrow();
        assertThat(history.steps()).containsExactly(delay, charged);
        assertThat(history.attempts()).containsExactly(succeeded);
        // the row locked, not written
        assertThat(rowVersion("t-1")).isEqualTo(version);

        // the same again, as a retry after a lost acknowledgement: recorded already, nothing changes
        this.store.recordSteps(woken, List.of(delay, charged), succeeded, 1_330, 31_300);
        assertThat(this.store.history("t-1").orElseThrow().steps()).containsExactly(delay, charged);
        assertThat(this.store.history("t-1").orElseThrow().attempts()).containsExactly(succeeded);

        // a delay of zero waits for nothing: it has no PENDING row, and is inserted, in one statement too
        StepRow zero = new StepRow("t-1", 2, StepRow.DELAY, "delay", "[0]", StepRow.COMPLETED, null, null, "key-2",
                1, 1_400, 1_400, null);
        statements.set(0);
        counted.recordStep(woken, zero, null, 1_400, 31_300);
        assertThat(statements).hasValue(1);
        assertThat(this.store.history("t-1").orElseThrow().steps()).containsExactly(delay, charged, zero);

        // asleep again, then woken with a step after the delay that is not the one recorded there: refused, and
        // the delay is not completed without it
        StepRow pendingAgain = new StepRow("t-1", 3, StepRow.DELAY, "delay", "[1000]", StepRow.PENDING, null, null,
                "key-3", 1, 1_500, 1_500, null);
        this.store.suspend(woken, List.of(pendingAgain), new Suspend(ExecutionStatus.WAITING, 2_500L, Set.of(),
                Set.of()), 1_500, 31_500);
        Lease again = this.store.claimDue("vendas", "v1", "c", 10, 2_600, 32_600, Set.of()).get(0);
        this.store.recordStep(again, new StepRow("t-1", 4, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "true", null, "key-4", 1, 2_610, 2_620, null), null, 2_620, 32_600);
        StepRow other = new StepRow("t-1", 4, StepRow.COMMAND, "cobrarCartao", "[]", StepRow.COMPLETED, "true", null,
                "key-4", 1, 2_610, 2_620, null);
        assertThatExceptionOfType(StoreStatementException.class).isThrownBy(() -> counted.recordSteps(again,
                List.of(new StepRow("t-1", 3, StepRow.DELAY, "delay", "[1000]", StepRow.COMPLETED, null, null,
                        "key-3", 1, 1_500, 2_600, null), other), null, 2_630, 32_600));
        assertThat(this.store.history("t-1").orElseThrow().steps().get(3)).isEqualTo(pendingAgain);
    }

    @Test
    void aDelayGoesToSleepInOneStatementAndAllOrNothing() throws SQLException {
        Lease lease = claimed("[{\"valor\":150.00,\"em\":\"2026-12-06T09:15:30-03:00\"}]");
        this.store.recordStep(lease, new StepRow("t-1", 0, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "true", null, "key-0", 1, 150, 160, null), null, 160, 30_100);
        StepRow delay = new StepRow("t-1", 1, StepRow.DELAY, "delay", "[3600000]", StepRow.PENDING, null, null,
                "key-1", 1, 200, 200, null);
        AtomicInteger statements = new AtomicInteger();
        JdbcExecutionStore counted = countingStatements(statements);

        // a runner that lost its lease: nothing written
        Lease stale = new Lease("t-1", "a", "not-the-token");
        assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> counted.suspend(stale, List.of(delay),
                new Suspend(ExecutionStatus.WAITING, 3_600_200L, Set.of(), Set.of()), 200, 30_200));
        assertThat(this.store.history("t-1").orElseThrow().steps()).extracting(StepRow::position).containsExactly(0);

        // a different step where the delay goes: refused, and the execution is not put to sleep without its delay
        StepRow taken = new StepRow("t-1", 0, StepRow.DELAY, "delay", "[3600000]", StepRow.PENDING, null, null,
                "key-0", 1, 200, 200, null);
        assertThatExceptionOfType(StoreStatementException.class).isThrownBy(() -> counted.suspend(lease,
                List.of(taken), new Suspend(ExecutionStatus.WAITING, 3_600_200L, Set.of(), Set.of()), 200, 30_200));
        assertThat(this.store.history("t-1").orElseThrow().execution().status()).isEqualTo(ExecutionStatus.RUNNING);

        statements.set(0);
        counted.suspend(lease, List.of(delay), new Suspend(ExecutionStatus.WAITING, 3_600_200L, Set.of(), Set.of()),
                200, 30_200);

        assertThat(statements).hasValue(1);
        dev.skail.platform.StoredHistory history = this.store.history("t-1").orElseThrow();
        assertThat(history.execution().status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(history.execution().nextRunAt()).isEqualTo(3_600_200L);
        assertThat(history.steps()).extracting(StepRow::position).containsExactly(0, 1);
        assertThat(history.steps().get(1)).isEqualTo(delay);
        // due when the delay ends, not before
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 3_600_100, 3_630_100, Set.of())).isEmpty();
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 3_600_200, 3_630_200, Set.of()))
            .extracting(Lease::taskId).containsExactly("t-1");
    }

    @Test
    void aStepPastHalfTheLeaseExtendsIt() throws SQLException {
        Lease lease = claimed("[]");
        String version = rowVersion("t-1");

        // 20 s later, 10 s of the lease left: less than half of the 30 s asked for
        this.store.recordStep(lease, new StepRow("t-1", 0, StepRow.COMMAND, "reservarEstoque", "[]",
                StepRow.COMPLETED, "\"ok\"", null, "key-0", 1, 20_000, 20_000, null), null, 20_000, 50_000);

        assertThat(this.store.history("t-1").orElseThrow().steps()).hasSize(1);
        assertThat(leaseUntil("t-1")).isEqualTo(50_000);
        assertThat(rowVersion("t-1")).isNotEqualTo(version);
    }

    @Test
    void noClaimTakesAnExecutionWhileAStepHoldsItsRowLockedEvenWhenTheClaimersClockSaysTheLeaseEnded()
            throws SQLException {
        // S14: the lock replaces the fence's update, and keeps claims off as the update's lock did
        Lease lease = claimed("[]");
        try (Connection step = this.pool.getConnection()) {
            step.setAutoCommit(false);
            try (PreparedStatement ps = step.prepareStatement("SELECT 1 FROM skail_execution WHERE "
                    + JdbcExecutionStore.FRESH_LEASE + " FOR SHARE")) {
                List<Object> values = JdbcExecutionStore.freshLease(lease, 600, 30_600);
                for (int i = 0; i < values.size(); i++) {
                    ps.setObject(i + 1, values.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
            // another instance whose clock is past the lease: it passes the locked row by
            assertThat(this.store.claimDue("vendas", "v1", "b", 10, 40_000, 70_000, java.util.Set.of())).isEmpty();
            step.commit();
        }
        assertThat(this.store.claimDue("vendas", "v1", "b", 10, 40_000, 70_000, java.util.Set.of()))
            .extracting(Lease::taskId).containsExactly("t-1");
    }

    @Test
    void stepsOfExecutionsThatWaitForAStepStatementAreWrittenByOneStatementEachKeepingItsOwnOutcome()
            throws Exception {
        for (String taskId : List.of("t-1", "t-2", "t-3", "t-4", "t-5", "t-6")) {
            this.store.create(new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[]",
                    ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        }
        java.util.Map<String, Lease> leases = new java.util.HashMap<>();
        for (Lease lease : this.store.claimDue("vendas", "v1", "a", 10, 100, 30_100, java.util.Set.of())) {
            leases.put(lease.taskId(), lease);
        }
        // t-5's step is already there, as when the acknowledgement of its write was lost and it is written again
        this.store.recordStep(leases.get("t-5"), step("t-5", 0, "\"ok\""), null, 500, 30_500);
        PostgreSqlStepBatches batches = java.util.Objects.requireNonNull(this.store.stepBatches());
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(7);
        try (Connection blocker = this.pool.getConnection()) {
            // t-1's step waits for another transaction's uncommitted row at its position: the steps after it queue
            holdStepPosition(blocker, "t-1", 0);
            java.util.concurrent.Future<?> first = threads.submit(() -> this.store.recordStep(leases.get("t-1"),
                    step("t-1", 0, "\"reservado\""), null, 600, 30_600));
            int blockerPid = backendPid(blocker);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waitsFor(blockerPid));
            List<java.util.concurrent.Future<?>> queued = List.of(
                    // two branches of one execution: one statement writes one step of an execution
                    threads.submit(() -> this.store.recordStep(leases.get("t-2"), step("t-2", 0, "\"a\""), null,
                            600, 30_600)),
                    threads.submit(() -> this.store.recordStep(leases.get("t-2"), step("t-2", 1, "\"b\""), null,
                            600, 30_600)),
                    threads.submit(() -> this.store.recordStep(leases.get("t-3"), step("t-3", 0, ORDER_TEXT), null,
                            600, 30_600)),
                    // a runner whose lease was taken over: its step alone fails
                    threads.submit(() -> this.store.recordStep(new Lease("t-4", "a", "not-the-token"),
                            step("t-4", 0, "\"x\""), null, 600, 30_600)),
                    threads.submit(() -> this.store.recordStep(leases.get("t-5"), step("t-5", 0, "\"ok\""), null,
                            600, 30_600)),
                    // its first attempt succeeded: the attempt is implied by the step, checked and not written
                    threads.submit(() -> this.store.recordStep(leases.get("t-6"), step("t-6", 0, "\"ok\""),
                            firstAttempt("t-6"), 600, 30_600)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> batches.queued() == 6);
            blocker.rollback();
            first.get(10, java.util.concurrent.TimeUnit.SECONDS);
            for (int i = 0; i < queued.size(); i++) {
                if (i == 3) {
                    assertThat(org.assertj.core.api.Assertions.catchThrowable(
                            () -> queued.get(3).get(10, java.util.concurrent.TimeUnit.SECONDS)))
                        .hasCauseInstanceOf(dev.skail.platform.LeaseLostException.class);
                }
                else {
                    queued.get(i).get(10, java.util.concurrent.TimeUnit.SECONDS);
                }
            }
        }
        finally {
            threads.shutdownNow();
        }

        // one statement for t-2's first branch, t-3, t-4, t-5 and t-6; t-2's second branch after it, alone
        assertThat(batches.counts()).containsExactly(1, 5);
        assertThat(batches.outcomes(PostgreSqlStepBatches.Outcome.INSERTED)).isEqualTo(3);
        assertThat(batches.outcomes(PostgreSqlStepBatches.Outcome.NOT_FRESH)).isEqualTo(1);
        assertThat(batches.outcomes(PostgreSqlStepBatches.Outcome.TAKEN)).isEqualTo(1);
        assertThat(this.store.history("t-1").orElseThrow().steps()).extracting(StepRow::result)
            .containsExactly("\"reservado\"");
        assertThat(this.store.history("t-2").orElseThrow().steps()).extracting(StepRow::position)
            .containsExactly(0, 1);
        // written as one element of the statement's arrays, read back as it was
        assertThat(this.store.history("t-3").orElseThrow().steps()).extracting(StepRow::result)
            .containsExactly(ORDER_TEXT);
        assertThat(this.store.history("t-4").orElseThrow().steps()).isEmpty();
        assertThat(this.store.history("t-5").orElseThrow().steps()).hasSize(1);
        assertThat(this.store.history("t-6").orElseThrow().steps()).hasSize(1);
        assertThat(this.store.history("t-6").orElseThrow().attempts()).containsExactly(firstAttempt("t-6"));
        // none of them wrote a new version of its execution's row
        assertThat(leaseUntil("t-3")).isEqualTo(30_100);
    }

    /** The first attempt of {@link #step}, succeeded and recorded. */
    private static dev.skail.platform.AttemptRow firstAttempt(String taskId) {
        return new dev.skail.platform.AttemptRow(taskId, 0, "reservarEstoque", 1, 1, 550, 600,
                dev.skail.SkailAttempt.SUCCEEDED, null, dev.skail.SkailAttempt.RECORDED, null);
    }

    /**
     * A recorded order whose text holds what an array's literal gives a meaning to (quotes, a backslash, braces, a
     * comma, the word NULL), text beyond ASCII and an escaped line break.
     */
    private static final String ORDER_TEXT = "{\"total\":150.00,\"em\":\"2026-12-05T10:15:30-03:00\","
            + "\"obs\":\"caf\u00e9 \\\"expresso\\\" {1,2} NULL \\\\ \ud83d\ude00\\n\",\"itens\":[\"A\",null]}";

    private static StepRow step(String taskId, int position, String result) {
        return new StepRow(taskId, position, StepRow.COMMAND, "reservarEstoque", "[]", StepRow.COMPLETED, result,
                null, taskId + "-" + position, 1, 550, 600, null);
    }

    @Test
    void aStepWhoseExecutionIsLockedByAnotherTransactionDoesNotHoldUpTheOthersInItsStatement() throws Exception {
        for (String taskId : List.of("t-1", "t-2", "t-3")) {
            this.store.create(new ExecutionRow(taskId, "vendas", "v1", "processarPedido", "[]",
                    ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        }
        java.util.Map<String, Lease> leases = new java.util.HashMap<>();
        for (Lease lease : this.store.claimDue("vendas", "v1", "a", 10, 100, 30_100, java.util.Set.of())) {
            leases.put(lease.taskId(), lease);
        }
        PostgreSqlStepBatches batches = java.util.Objects.requireNonNull(this.store.stepBatches());
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(3);
        this.pool.setMaximumPoolSize(5);
        try (Connection blocker = this.pool.getConnection(); Connection busy = this.pool.getConnection()) {
            // t-1's step waits (its position held by another transaction) while t-2's and t-3's steps queue; t-3's
            // execution row is locked by yet another transaction (an end, a client's) until after their statement
            holdStepPosition(blocker, "t-1", 0);
            busy.setAutoCommit(false);
            try (Statement statement = busy.createStatement()) {
                statement.execute("SELECT 1 FROM skail_execution WHERE task_id = 't-3' FOR UPDATE");
            }
            java.util.concurrent.Future<?> t1 = threads.submit(() -> this.store.recordStep(leases.get("t-1"),
                    step("t-1", 0, "\"reservado\""), null, 600, 30_600));
            int blockerPid = backendPid(blocker);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waitsFor(blockerPid));
            java.util.concurrent.Future<?> t2 = threads.submit(() -> this.store.recordStep(leases.get("t-2"),
                    step("t-2", 0, "\"cobrado\""), null, 600, 30_600));
            java.util.concurrent.Future<?> t3 = threads.submit(() -> this.store.recordStep(leases.get("t-3"),
                    step("t-3", 0, "\"enviado\""), null, 600, 30_600));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> batches.queued() == 2);
            blocker.rollback();
            t1.get(10, java.util.concurrent.TimeUnit.SECONDS);
            // t-2 is written by the statement that passed t-3's row by; t-3 waits for that row on its own
            t2.get(10, java.util.concurrent.TimeUnit.SECONDS);
            int busyPid = backendPid(busy);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> waitsFor(busyPid));
            assertThat(t3).isNotDone();
            assertThat(batches.outcomes(PostgreSqlStepBatches.Outcome.INSERTED)).isEqualTo(1);
            assertThat(batches.outcomes(PostgreSqlStepBatches.Outcome.LOCKED)).isEqualTo(1);
            busy.commit();
            t3.get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        finally {
            threads.shutdownNow();
        }
        assertThat(this.store.history("t-1").orElseThrow().steps()).extracting(StepRow::result)
            .containsExactly("\"reservado\"");
        assertThat(this.store.history("t-2").orElseThrow().steps()).extracting(StepRow::result)
            .containsExactly("\"cobrado\"");
        assertThat(this.store.history("t-3").orElseThrow().steps()).extracting(StepRow::result)
            .containsExactly("\"enviado\"");
    }

    /** Holds the step's position with an uncommitted row in {@code connection}'s transaction. */
    private static void holdStepPosition(Connection connection, String taskId, int position) throws SQLException {
        connection.setAutoCommit(false);
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO skail_step (task_id, position, kind, "
                + "name, arguments, status, idempotency_key, function_attempt, started_at, completed_at) "
                + "VALUES (?, ?, 'COMMAND', 'x', '[]', 'COMPLETED', 'k', 1, 0, 0)")) {
            ps.setString(1, taskId);
            ps.setInt(2, position);
            ps.executeUpdate();
        }
    }

    private static int backendPid(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Whether a session waits for a lock that the session {@code pid} holds. */
    private boolean waitsFor(int pid) throws SQLException {
        try (Connection connection = this.pool.getConnection();
                PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity "
                        + "WHERE ? = ANY (pg_blocking_pids(pid))")) {
            ps.setInt(1, pid);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1) > 0;
            }
        }
    }

    @Test
    void everyEndIsAnnouncedToAListenerThatSaysWhetherItListensAndFirstHearsThatAnyMayHaveEnded() throws Exception {
        assertThat(this.store.announcesEnds()).isTrue();
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.skail.platform.ExecutionStore.Listening listener = (dev.skail.platform.ExecutionStore.Listening) this.store
            .onEnded((taskId) -> heard.add(String.valueOf(taskId)));
        try {
            // it listens a moment after it is returned; once it does, it says that any may have ended unheard
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::listening);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("null"));
            assertThat(heard.get(0)).isEqualTo("null");

            Lease lease = claimed("[{\"valor\":150.00,\"em\":\"2026-12-06T09:15:30-03:00\"}]");
            this.store.complete(lease, "{\"cobrado\":150.00}", 200);

            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("t-1"));
        }
        finally {
            listener.close();
        }
        assertThat(listener.listening()).isFalse();
    }

    @Test
    void anEndIsAnnouncedOnceCommittedAndEndsThatComeWhileOneIsSentGoTogetherInTheNext() throws Exception {
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<String> notEndedWhenHeard = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.skail.platform.ExecutionStore.Listening listener = (dev.skail.platform.ExecutionStore.Listening) this.store
            .onEnded((taskId) -> {
                if (taskId != null) {
                    // the store's end is heard only once committed: any reader sees it ended
                    if (taskId.equals("t-1")
                            && !this.store.find(taskId).map((row) -> row.status().isTerminal()).orElse(false)) {
                        notEndedWhenHeard.add(taskId);
                    }
                    heard.add(taskId);
                }
            });
        java.util.concurrent.CountDownLatch firstSendMayConnect = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
        PostgreSqlEndAnnouncements announcements = announcementsConnecting((attempt) -> {
            if (first.getAndSet(false)) {
                awaitQuietly(firstSendMayConnect);
            }
        });
        try {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::listening);

            // the store's own: an end it completes is heard, and is ended when heard
            Lease lease = claimed("[{\"valor\":99.90,\"em\":\"2026-12-06T09:15:30-03:00\"}]");
            this.store.complete(lease, "{\"cobrado\":99.90}", 200);
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("t-1"));

            // the first send waits for its connection with pedido-0; the ten that come meanwhile go in the next
            announcements.announce("pedido-0");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !first.get());
            for (int i = 1; i <= 10; i++) {
                announcements.announce("pedido-" + i);
            }
            firstSendMayConnect.countDown();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> java.util.stream.IntStream.rangeClosed(0, 10)
                    .allMatch((i) -> heard.contains("pedido-" + i)));
            assertThat(announcements.counts()).containsExactly(2L, 11L);
        }
        finally {
            announcements.close();
            listener.close();
        }
        assertThat(notEndedWhenHeard).as("heard before the end committed").isEmpty();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.store.ends().counts()[1], (n) -> n == 1L);
        // closed, it takes nothing more to announce
        announcements.announce("pedido-late");
        assertThat(announcements.waiting()).isZero();
        assertThat(announcements.counts()).containsExactly(2L, 11L);
    }

    @Test
    void anAnnouncementThatFailsIsSentAgainASecondLaterAndTheEndsThatCameMeanwhileAfterIt() throws Exception {
        List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.skail.platform.ExecutionStore.Listening listener = (dev.skail.platform.ExecutionStore.Listening) this.store
            .onEnded((taskId) -> heard.add(String.valueOf(taskId)));
        AtomicInteger connections = new AtomicInteger();
        java.util.concurrent.CountDownLatch retryMayConnect = new java.util.concurrent.CountDownLatch(1);
        PostgreSqlEndAnnouncements announcements = announcementsConnecting((attempt) -> {
            connections.set(attempt);
            if (attempt == 1) {
                throw new SQLException("The connection attempt failed", "08001");
            }
            if (attempt == 2) {
                awaitQuietly(retryMayConnect);
            }
        });
        try {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(listener::listening);

            announcements.announce("pedido-1");
            // its send failed; the retry, a second later, waits for its connection until pedido-2 is announced
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> connections.get() == 2);
            announcements.announce("pedido-2");
            retryMayConnect.countDown();

            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> heard.contains("pedido-1") && heard.contains("pedido-2"));
            assertThat(announcements.counts()).containsExactly(2L, 2L);
        }
        finally {
            announcements.close();
            listener.close();
        }
    }

    /** What an announcer's connection attempt does first (its number, from 1), before it connects to the pool. */
    @FunctionalInterface
    private interface BeforeConnecting {

        void attempt(int attempt) throws SQLException;
    }

    /** An announcer of ends on this test's pool whose connection attempts first go through {@code before}. */
    private PostgreSqlEndAnnouncements announcementsConnecting(BeforeConnecting before) {
        AtomicInteger attempts = new AtomicInteger();
        return new PostgreSqlEndAnnouncements(new org.springframework.jdbc.datasource.DelegatingDataSource(this.pool) {
            @Override
            public Connection getConnection() throws SQLException {
                before.attempt(attempts.incrementAndGet());
                return super.getConnection();
            }
        });
    }

    private static void awaitQuietly(java.util.concurrent.CountDownLatch latch) {
        try {
            latch.await(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Execution {@code t-1}, created with these arguments and claimed at 100 with a lease until 30,100. */
    /** A store on this test's pool whose statements are counted. */
    private JdbcExecutionStore countingStatements(AtomicInteger statements) {
        return new JdbcExecutionStore(ClaimingTests.countingStatements(this.pool, statements), SqlDialect.POSTGRESQL,
                new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null,
                this.schema, true);
    }

    private Lease claimed(String arguments) {
        this.store.create(new ExecutionRow("t-1", "vendas", "v1", "processarPedido", arguments,
                ExecutionStatus.PENDING, null, null, 1, 0, 0L, 0, 0, null));
        return this.store.claimDue("vendas", "v1", "a", 10, 100, 30_100, java.util.Set.of()).get(0);
    }

    /** The row's version: PostgreSQL's id of the transaction that wrote it, and where it is. */
    private String rowVersion(String taskId) throws SQLException {
        return select("SELECT xmin::text || ctid::text FROM skail_execution WHERE task_id = ?", taskId);
    }

    private long leaseUntil(String taskId) throws SQLException {
        return Long.parseLong(select("SELECT lease_until::text FROM skail_execution WHERE task_id = ?", taskId));
    }

    private String select(String sql, String taskId) throws SQLException {
        try (Connection connection = this.pool.getConnection();
                PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, taskId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    @Override
    @AfterEach
    void close() throws Exception {
        this.store.close();
        this.pool.close();
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
        }
    }
}
