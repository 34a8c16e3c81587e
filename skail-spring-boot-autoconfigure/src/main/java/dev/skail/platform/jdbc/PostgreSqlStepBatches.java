package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreDeadline;

/**
 * The usual steps of concurrent executions on PostgreSQL, written together: one statement, one round trip, one commit
 * for the steps that wait while another such statement runs.
 * <p>
 * A step that needs no change of its execution's row (its lease fresh, see {@link JdbcExecutionStore#FRESH_LEASE}) and
 * no attempt row of its own is written by one statement of the store's ({@code recordNewStep}); on a server shared
 * with the application on a few cores, that statement's round trip, its execution and its commit (a flush of the
 * write-ahead log) are most of what a step costs, and the server's CPU is what limits the executions per second. So a
 * step that comes while such a statement runs waits for it, and the steps that waited are then written by one statement
 * of many rows: each row's fence locks its execution's row ({@code FOR SHARE}, as the single statement does), each row
 * is inserted only when its fence holds, and each caller learns its own row's outcome. A row whose execution is locked
 * by another transaction (an end, a claim, a client's) is passed by ({@code SKIP LOCKED}) and its caller writes its own
 * statement, which waits for that lock as before: one busy row never holds the others' steps, nor the share locks the
 * statement has taken (which a lease renewal would wait for), and a statement never waits on an execution's row, so
 * it is in no cycle of locks with the writes that lock an execution and then another (an end waking its parent). A
 * caller alone writes at once, without waiting for anybody (a function's steps in sequence pay nothing), and so does a
 * caller with a request's deadline. One statement writes at most one step of an execution (parallel branches of one
 * execution wait for the next), so that each row's fence and insert are its own.
 * <p>
 * A statement that fails (a broken connection, a conflict the statement did not expect) is each caller's failure: each
 * then writes its step alone (the store's retries are around that), so one bad row cannot fail the others for good.
 */
final class PostgreSqlStepBatches {

    private static final Log logger = LogFactory.getLog(PostgreSqlStepBatches.class);

    /** The most steps one statement writes. */
    static final int MAX_BATCH = 64;

    private final DataSource dataSource;

    private final Object lock = new Object();

    /** Steps waiting for the next statement. Guarded by {@link #lock}. */
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();

    /** Whether a statement of this class is running. Guarded by {@link #lock}. */
    private boolean writing;

    private final AtomicLong statements = new AtomicLong();

    /** Whether a statement of many steps has failed with an {@link SQLException} since one last succeeded (told). */
    private volatile boolean warnedOfFailure;

    private final AtomicLong steps = new AtomicLong();

    /** The outcomes of the rows of statements of many steps, counted. */
    private final java.util.EnumMap<Outcome, AtomicLong> outcomes = new java.util.EnumMap<>(Outcome.class);

    {
        for (Outcome outcome : Outcome.values()) {
            this.outcomes.put(outcome, new AtomicLong());
        }
    }

    PostgreSqlStepBatches(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** What a step's row came to: see {@link #record}. */
    enum Outcome {

        /** Inserted. */
        INSERTED,

        /** Its position (or its attempt's number) was taken: the general path decides. */
        TAKEN,

        /** The fence found the lease not fresh (to extend, {@code updated_at} to move) or lost. */
        NOT_FRESH,

        /**
         * Its execution's row was locked by another transaction (an end, a claim, a client's): the statement passed it
         * by rather than make every step in it wait, and the caller writes its own.
         */
        LOCKED
    }

    /** A step's own statement, for a caller that writes alone (the store's single statement of a step). */
    @FunctionalInterface
    interface Single {

        Outcome write() throws SQLException;
    }

    /**
     * Writes the step under the fresh-lease fence: alone and at once ({@code single}) when no statement of this class
     * runs, otherwise with the other steps that wait for it, in the next statement.
     * @param implied the attempt number the step implies, checked as the single statement checks it (no stored attempt
     * of that number or later), or {@code null} when there is none to check
     */
    Outcome record(Lease lease, StepRow step, @Nullable Integer implied, long now, long leaseUntil, Single single)
            throws SQLException {
        if (StoreDeadline.isSet()) {
            // a request's deadline: not the others' statement to wait for, nor theirs to wait for it
            return single.write();
        }
        Pending mine = new Pending(lease, step, implied, now, leaseUntil, single);
        boolean leads;
        synchronized (this.lock) {
            leads = !this.writing;
            if (leads) {
                this.writing = true;
            }
            else {
                this.queue.add(mine);
            }
        }
        @Nullable List<Pending> batch = leads ? List.of(mine) : awaitTurn(mine);
        if (batch != null) {
            lead(batch);
        }
        if (mine.alone) {
            return single.write();
        }
        return mine.result();
    }

    /**
     * Waits (parked, not holding {@link #lock}) until {@code mine} is done or is to lead the next statement: a hand-off
     * wakes the callers of the statement that ran and the leader of the next, no other.
     * @return the batch {@code mine} leads, or {@code null} once it is done
     */
    private @Nullable List<Pending> awaitTurn(Pending mine) {
        boolean interrupted = false;
        while (!mine.done && mine.lead == null) {
            LockSupport.park(this);
            // its row may be in the statement running: it waits for the outcome, then keeps the interrupt
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return mine.done ? null : mine.lead;
    }

    /** Writes {@code batch}, tells each caller, and hands the next batch (if any waits) to one of its callers. */
    private void lead(List<Pending> batch) {
        List<Outcome> outcomes = null;
        Throwable failure = null;
        try {
            outcomes = (batch.size() == 1) ? List.of(batch.get(0).single.write()) : write(batch);
            if (batch.size() > 1 && this.warnedOfFailure) {
                this.warnedOfFailure = false;
            }
        }
        catch (Throwable ex) {
            failure = ex;
            if (batch.size() > 1 && !(ex instanceof SQLException)) {
                logger.warn("skail store: a statement of " + batch.size() + " steps failed; each is written alone", ex);
            }
            else if (batch.size() > 1 && !this.warnedOfFailure) {
                // once until a statement of many steps succeeds again: a driver or pool that cannot bind the
                // statement's arrays would otherwise lose every batch unseen
                this.warnedOfFailure = true;
                logger.warn("skail store: a statement of " + batch.size() + " steps failed (" + ex.getMessage()
                        + "); each is written alone. Not told again until such a statement succeeds");
            }
        }
        finally {
            handOff(batch, outcomes, failure);
        }
        if (batch.size() == 1 && failure != null && !(failure instanceof SQLException)) {
            // its own step's statement: the failure is its caller's, as it would have been alone
            if (failure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failure;
        }
        if (failure instanceof Error error) {
            // every other caller writes its own step; the leader's thread learns of the error
            throw error;
        }
    }

    /** Tells each caller of {@code batch} its outcome and hands the next batch on. */
    private void handOff(List<Pending> batch, @Nullable List<Outcome> outcomes, @Nullable Throwable failure) {
        List<Pending> next;
        synchronized (this.lock) {
            for (int i = 0; i < batch.size(); i++) {
                Pending pending = batch.get(i);
                if (outcomes != null) {
                    pending.outcome = outcomes.get(i);
                }
                else if (batch.size() > 1) {
                    // each writes its own step again, alone: one bad row does not fail the others
                    pending.alone = true;
                }
                else if (failure instanceof SQLException ex) {
                    pending.failure = ex;
                }
                else {
                    pending.failure = new SQLException("The step's statement failed", "08000", failure);
                }
                pending.done = true;
            }
            next = nextBatch();
            if (next.isEmpty()) {
                this.writing = false;
            }
            else {
                next.get(0).lead = next;
            }
        }
        Thread leader = Thread.currentThread();
        for (Pending pending : batch) {
            if (pending.thread != leader) {
                LockSupport.unpark(pending.thread);
            }
        }
        if (!next.isEmpty()) {
            LockSupport.unpark(next.get(0).thread);
        }
    }

    /** The steps that waited, at most one per execution and {@link #MAX_BATCH}; called holding {@link #lock}. */
    private List<Pending> nextBatch() {
        List<Pending> next = new ArrayList<>();
        Set<String> executions = new HashSet<>();
        for (Iterator<Pending> it = this.queue.iterator(); it.hasNext() && next.size() < MAX_BATCH;) {
            Pending pending = it.next();
            if (executions.add(pending.step.taskId())) {
                it.remove();
                next.add(pending);
            }
        }
        return next;
    }

    /** One statement for the steps of {@code batch}; the outcomes in its order. */
    private List<Outcome> write(List<Pending> batch) throws SQLException {
        int rows = batch.size();
        Integer[] numbers = new Integer[rows];
        String[] taskIds = new String[rows];
        String[] tokens = new String[rows];
        Long[] leasesAtLeast = new Long[rows];
        Long[] updatedAfter = new Long[rows];
        Integer[] implied = new Integer[rows];
        Integer[] positions = new Integer[rows];
        String[] kinds = new String[rows];
        String[] names = new String[rows];
        String[] arguments = new String[rows];
        String[] statuses = new String[rows];
        String[] results = new String[rows];
        String[] errors = new String[rows];
        String[] idempotencyKeys = new String[rows];
        Integer[] functionAttempts = new Integer[rows];
        Long[] startedAt = new Long[rows];
        Long[] completedAt = new Long[rows];
        String[] childTaskIds = new String[rows];
        for (int i = 0; i < rows; i++) {
            Pending pending = batch.get(i);
            StepRow step = pending.step;
            numbers[i] = i;
            // the fence's values, as JdbcExecutionStore.freshLease gives them: task, token, lease at least, updated
            // after
            taskIds[i] = pending.lease.taskId();
            tokens[i] = pending.lease.token();
            leasesAtLeast[i] = JdbcExecutionStore.freshLeaseAtLeast(pending.now, pending.leaseUntil);
            updatedAfter[i] = JdbcExecutionStore.freshLeaseUpdatedAfter(pending.now);
            implied[i] = pending.implied;
            positions[i] = step.position();
            kinds[i] = step.kind();
            names[i] = step.name();
            arguments[i] = step.arguments();
            statuses[i] = step.status();
            results[i] = step.result();
            errors[i] = step.error();
            idempotencyKeys[i] = step.idempotencyKey();
            functionAttempts[i] = step.functionAttempt();
            startedAt[i] = step.startedAt();
            completedAt[i] = step.completedAt();
            childTaskIds[i] = step.childTaskId();
        }
        Object[][] columns = { numbers, taskIds, tokens, leasesAtLeast, updatedAfter, implied, positions, kinds, names,
                arguments, statuses, results, errors, idempotencyKeys, functionAttempts, startedAt, completedAt,
                childTaskIds };
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(STATEMENT)) {
                for (int i = 0; i < columns.length; i++) {
                    ps.setArray(i + 1, connection.createArrayOf(COLUMN_TYPES[i], columns[i]));
                }
                List<Outcome> outcomes = new ArrayList<>(rows);
                for (int i = 0; i < rows; i++) {
                    outcomes.add(null);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int row = rs.getInt(1);
                        Outcome outcome = (rs.getLong(2) == 0) ? ((rs.getLong(4) == 0) ? Outcome.NOT_FRESH
                                : Outcome.LOCKED) : (rs.getLong(3) == 1) ? Outcome.INSERTED : Outcome.TAKEN;
                        outcomes.set(row, outcome);
                        this.outcomes.get(outcome).incrementAndGet();
                    }
                }
                for (Outcome outcome : outcomes) {
                    if (outcome == null) {
                        throw new SQLException("The steps' statement did not answer for every step", "XX000");
                    }
                }
                this.statements.incrementAndGet();
                this.steps.addAndGet(rows);
                return outcomes;
            }
        }
    }

    /**
     * A row {@code e} of skail_execution as the fresh lease of the step {@code v} leaves it, as
     * {@link JdbcExecutionStore#FRESH_LEASE} says it.
     */
    private static final String FRESH = "e.task_id = v.task_id AND e.lease_token = v.lease_token "
            + "AND e.status = 'RUNNING' AND e.lease_until >= v.lease_at_least AND e.updated_at > v.updated_after";

    /** The element types of {@link #STATEMENT}'s arrays, in its parameters' order (as its casts name them). */
    private static final String[] COLUMN_TYPES = { "int4", "varchar", "varchar", "int8", "int8", "int4", "int4",
            "varchar", "varchar", "text", "varchar", "text", "text", "varchar", "int4", "int8", "int8", "varchar" };

    /**
     * The statement for any number of steps, their values given as one array per column (one text whatever the number
     * of rows, so that pgjdbc caches its parse and the server can run it prepared): the
     * fence of each (its execution's row locked when the lease is fresh), the insert of each whose fence holds (and
     * whose implied attempt number is free), and one answer row per step: its number, whether its fence held, whether
     * it was inserted, whether its row reads fresh without a lock. The fence looks each execution up by its key
     * ({@code LATERAL}), whatever the planner estimates of the arrays' length.
     */
    static final String STATEMENT = "WITH v AS (SELECT * FROM unnest(CAST(? AS INT[]), CAST(? AS VARCHAR[]), "
            + "CAST(? AS VARCHAR[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS INT[]), CAST(? AS INT[]), "
            + "CAST(? AS VARCHAR[]), CAST(? AS VARCHAR[]), CAST(? AS TEXT[]), CAST(? AS VARCHAR[]), CAST(? AS TEXT[]), "
            + "CAST(? AS TEXT[]), CAST(? AS VARCHAR[]), CAST(? AS INT[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), "
            + "CAST(? AS VARCHAR[])) AS v (n, task_id, lease_token, lease_at_least, updated_after, implied, position, "
            + "kind, name, arguments, status, result, error, idempotency_key, function_attempt, started_at, "
            + "completed_at, child_task_id)), "
            + "fence AS (SELECT l.task_id FROM v CROSS JOIN LATERAL (SELECT e.task_id FROM skail_execution e WHERE "
            + FRESH + " FOR SHARE OF e SKIP LOCKED) l), "
            + "step AS (INSERT INTO skail_step (" + JdbcExecutionStore.STEP_COLUMNS + ") SELECT "
            + Arrays.stream(JdbcExecutionStore.STEP_COLUMNS.split(", ")).map((column) -> "v." + column)
                .collect(Collectors.joining(", "))
            + " FROM v JOIN fence f ON f.task_id = v.task_id "
            // an implied attempt whose number is taken is not this step's to record: the general path refuses it
            + "WHERE v.implied IS NULL OR NOT EXISTS (SELECT 1 FROM skail_attempt a WHERE a.task_id = v.task_id "
            + "AND a.position = v.position AND a.function_attempt = v.function_attempt AND a.number >= v.implied) "
            + "ON CONFLICT (task_id, position) DO NOTHING RETURNING task_id) "
            + "SELECT v.n, (SELECT COUNT(*) FROM fence f WHERE f.task_id = v.task_id), "
            + "(SELECT COUNT(*) FROM step s WHERE s.task_id = v.task_id), "
            // the row as it reads without a lock: fresh but passed by, it was locked by another transaction
            + "(SELECT COUNT(*) FROM skail_execution e WHERE " + FRESH + ") FROM v";

    /** Statements of many steps written so far, and the steps they carried (a step written alone is not counted). */
    long[] counts() {
        return new long[] { this.statements.get(), this.steps.get() };
    }

    /** How many rows of statements of many steps came to {@code outcome}. */
    long outcomes(Outcome outcome) {
        return this.outcomes.get(outcome).get();
    }

    /** Steps waiting for the next statement now. */
    int queued() {
        synchronized (this.lock) {
            return this.queue.size();
        }
    }

    private static final class Pending {

        final Lease lease;

        final StepRow step;

        final @Nullable Integer implied;

        final long now;

        final long leaseUntil;

        /** The caller's thread, woken by the hand-off that concerns it. */
        final Thread thread = Thread.currentThread();

        /**
         * Written under the batches' lock, after the outcome, failure or {@code alone} (read once this is seen), and
         * read without it by the parked caller.
         */
        volatile boolean done;

        /** The batch this caller is to lead: written under the batches' lock, read without it by the caller. */
        volatile @Nullable List<Pending> lead;

        @Nullable Outcome outcome;

        @Nullable SQLException failure;

        /** Its statement failed with others' steps: it writes its own. */
        boolean alone;

        final Single single;

        Pending(Lease lease, StepRow step, @Nullable Integer implied, long now, long leaseUntil, Single single) {
            this.single = single;
            this.lease = lease;
            this.step = step;
            this.implied = implied;
            this.now = now;
            this.leaseUntil = leaseUntil;
        }

        /** Read after {@code done} was seen true (a volatile read: the fields written before it are seen too). */
        Outcome result() throws SQLException {
            if (this.failure != null) {
                throw this.failure;
            }
            return Objects.requireNonNull(this.outcome);
        }
    }
}
