package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Savepoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.skail.platform.StoreDeadline;

/**
 * Runs the write transactions of concurrent callers as one transaction, one commit and one sync to disk (group
 * commit across executions).
 * <p>
 * What follows is about durable writes ({@link #run}). A work that needs no durability (a claim, {@link #runUnsynced})
 * rides the next batch when one is sure to come, is told at its commit, never leads a batch, and otherwise runs alone.
 * <p>
 * A caller queues its work and waits. Whichever waiting caller finds no batch running leads the next one: it takes
 * everything queued (at most {@code maxBatch}), runs each work in turn on one connection, commits, waits until the
 * commit would survive a power loss ({@link JdbcCustomization#committed}), and only then gives every caller its
 * result. Nobody is told a write is recorded before it is durable; what changes is that the commit's cost (on an
 * embedded H2, writing its changed pages and forcing the file) is paid once for the whole batch. A caller alone runs
 * its work in a transaction of its own, as before, without waiting for anybody.
 * <p>
 * One work's failure must not decide the others': each work runs after a savepoint, and one that throws (a lease
 * lost, a conflict, an {@code Error}) is rolled back to it and that failure is its caller's alone. When the
 * transaction itself is lost (a deadlock, a broken connection: the savepoint cannot be rolled back to), the batch is
 * rolled back and each work runs again in a transaction of its own. A failure of the commit or of the sync is every
 * caller's, told as a failure to reach the store (each retries as it would have alone: the works are the store's
 * retryable operations). A work must therefore leave the transaction to this class: no commit, no rollback of its own.
 * <p>
 * A caller with a {@link StoreDeadline} (a request) waits no longer than its deadline: still queued, it leaves the
 * queue and fails as if the store could not be reached; already in a running batch, it fails the same way while the
 * batch may still commit, as when a commit's acknowledgement is lost (a retry finds its write there). A caller that
 * leads a batch writes it without its deadline and its interrupt (both restored after): they are its own, not the
 * others'. A request that leads a batch on a disk that hangs waits for it; one that is queued does not.
 */
final class GroupCommit {

    /**
     * How many works must wait when a batch has committed for the next batch to be written while it syncs. With
     * fewer, the next batch waits for the sync and grows meanwhile: each batch pays H2's commit, which writes the
     * pages it changed, so many small batches cost more than fewer large ones (measured: always overlapping made
     * benchmark B slower at 8 worker threads).
     */
    static final int PIPELINE_AT = 8;

    /**
     * The name of the savepoint each work of a batch runs after, the same for all: a savepoint of that name replaces
     * the one before it, and only the latest is ever rolled back to. Named, because JDBC's unnamed savepoints are
     * numbered ({@code SAVEPOINT SYSTEM_SAVEPOINT_<n>} on H2): H2 keeps every new statement text in its session's
     * cache of parsed statements (64 on the default URL), so a new name per work pushed the store's own statements
     * out of it and each was parsed and planned again.
     */
    static final String WORK_SAVEPOINT = "skail_work";

    private final DataSource dataSource;

    private final JdbcCustomization customization;

    private final int maxBatch;

    private final Object lock = new Object();

    /**
     * Whether a batch is being written now: a write asked now would be ordered after it only by going through this
     * group.
     */
    boolean isWriting() {
        synchronized (this.lock) {
            return this.leading;
        }
    }

    /** Works waiting for the next batch. Guarded by {@link #lock}. */
    private final ArrayDeque<Pending<?>> queue = new ArrayDeque<>();

    /** Whether a caller runs a batch now. Guarded by {@link #lock}. */
    private boolean leading;

    /** Works committed, and the transactions that committed them (counted once committed). */
    private final AtomicLong works = new AtomicLong();

    private final AtomicLong transactions = new AtomicLong();

    GroupCommit(DataSource dataSource, JdbcCustomization customization, int maxBatch) {
        this.dataSource = dataSource;
        this.customization = customization;
        this.maxBatch = maxBatch;
    }

    /**
     * Runs {@code work} in a transaction, possibly shared with other callers' works, and returns its result once the
     * transaction is committed and durable.
     * @throws SQLException as the work, its commit or its sync failed
     */
    <T> T run(JdbcExecutionStore.SqlWork<T> work) throws SQLException {
        return run(new Pending<>(work, true), null);
    }

    /**
     * Runs {@code work}, which needs no durability (a claim: lost, its executions are simply due again), in the next
     * batch when one is sure to come (a batch is being written and a durable write waits for the next), and returns
     * its result as soon as that batch has committed, before its sync. Its pages then go to disk in the chunk of a
     * commit that happens anyway, instead of a commit of its own that holds H2's store lock (and, after a chunk H2
     * puts into reused space, a force) while the batches wait for it. It never leads a batch, which would make it
     * wait for the batch's sync: otherwise, or when the durable writes it waited with leave, {@code alone} runs
     * instead, as the work would have without this class. Once a batch has taken it, an interrupt does not make it
     * give up (the batch would commit what it claimed with nobody to run it): it waits for the commit, then keeps the
     * interrupt.
     * @throws SQLException as the work, its commit, or {@code alone} failed
     */
    <T> T runUnsynced(JdbcExecutionStore.SqlWork<T> work, Alone<T> alone) throws SQLException {
        return run(new Pending<>(work, false), alone);
    }

    /** Whether a durable write waits in the queue (it will lead or be in the next batch). Called holding the lock. */
    private boolean hasSyncedQueued() {
        for (Pending<?> pending : this.queue) {
            if (pending.synced) {
                return true;
            }
        }
        return false;
    }

    /** What a work that needs no durability runs when no batch takes it (see {@link #runUnsynced}). */
    @FunctionalInterface
    interface Alone<T> {

        T run() throws SQLException;
    }

    private <T> T run(Pending<T> mine, @Nullable Alone<T> alone) throws SQLException {
        @Nullable Lead lead = null;
        boolean queued = false;
        try {
            while (true) {
                synchronized (this.lock) {
                    if (!queued) {
                        if (!mine.synced && !(this.leading && hasSyncedQueued())) {
                            // no next batch is sure to come: it runs alone at once
                            break;
                        }
                        // queued and checked in one hold of the lock: no batch takes it before it has looked
                        this.queue.add(mine);
                        queued = true;
                    }
                    if (mine.done) {
                        if (mine.interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        return mine.outcome();
                    }
                    if (!mine.synced && !mine.taken && !hasSyncedQueued()) {
                        // no durable write left to lead or join the next batch: it does not lead one (it would wait
                        // for the sync), it runs alone
                        leave(mine);
                        break;
                    }
                    // a work that needs no durability waits for a batch to take it (a durable write queued will
                    // lead the next one); a durable write still queued when no batch is being written leads one
                    if (mine.synced && !this.leading && !mine.taken) {
                        if (StoreDeadline.remainingMillis() == 0) {
                            // too late to write anything: not the others' batch to fail on its deadline
                            leave(mine);
                            throw new SQLTransientConnectionException("no time left to reach the store", "08001");
                        }
                        // still queued, and no batch is being written: this caller writes the next one; what it
                        // needs is made first, since nothing may fail between taking the lead and the try that
                        // gives it back
                        Lead next = new Lead(Math.min(this.maxBatch, this.queue.size()));
                        this.queue.remove(mine);
                        next.batch.add(mine);
                        while (!this.queue.isEmpty() && next.batch.size() < this.maxBatch) {
                            next.batch.add(this.queue.poll());
                        }
                        for (Pending<?> pending : next.batch) {
                            pending.taken = true;
                        }
                        this.leading = true;
                        lead = next;
                        wakeUnsyncedLeftAlone();
                        break;
                    }
                }
                // queued behind a batch being written, or taken by a batch that waits for its sync
                awaitTurn(mine);
            }
        }
        catch (Error ex) {
            // out of memory, a stack overflow while waiting: the others must not wait for a caller that is gone (only
            // the first queued is woken to lead)
            synchronized (this.lock) {
                leave(mine);
            }
            if (mine.interrupted) {
                Thread.currentThread().interrupt();
            }
            throw ex;
        }
        if (lead == null) {
            return java.util.Objects.requireNonNull(alone).run();
        }
        Lead leader = lead;
        // the leader's deadline and interrupt are its own: they must not fail the others' writes
        boolean interrupted = Thread.interrupted();
        try {
            StoreDeadline.without(leader);
        }
        finally {
            leader.handOff();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return mine.outcome();
    }

    /** What a caller needs to lead a batch: made before it takes the lead. */
    private final class Lead implements Runnable {

        final List<Pending<?>> batch;

        private final Runnable handOff = this::handOff;

        private boolean handedOff;

        Lead(int capacity) {
            this.batch = new ArrayList<>(capacity);
        }

        /** Writes the batch. */
        @Override
        public void run() {
            execute(this.batch, this.handOff);
        }

        /** Lets the next batch begin: once, when this one is durable or (many waiting) committed. */
        void handOff() {
            if (!this.handedOff) {
                this.handedOff = true;
                synchronized (GroupCommit.this.lock) {
                    GroupCommit.this.leading = false;
                    wakeNextLeader();
                }
            }
        }
    }

    /**
     * Waits, no longer than the caller's deadline, until it may have its outcome or may lead the next batch: the
     * caller's own thread is woken (parked and unparked), not every waiting caller, so that a batch of {@code n}
     * writes wakes its {@code n} callers and one next leader, rather than everyone at each turn. Called without
     * {@link #lock}; the caller checks its state again after it (a wake-up may be spurious or early).
     */
    private void awaitTurn(Pending<?> mine) throws SQLException {
        long remaining = StoreDeadline.remainingMillis();
        if (remaining == 0) {
            synchronized (this.lock) {
                if (mine.done) {
                    return;
                }
                if (leave(mine)) {
                    throw new SQLTransientConnectionException("no time left to reach the store", "08001");
                }
                // taken by a batch: written only if the batch has not come to it yet (then, like a lost
                // acknowledgement, a retry finds it)
                mine.abandoned = true;
            }
            throw new SQLException("The store's commit did not end before the request's deadline", "08000");
        }
        if (remaining < 0) {
            LockSupport.park(this);
        }
        else {
            LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(remaining));
        }
        if (Thread.interrupted()) {
            synchronized (this.lock) {
                if (!mine.synced && mine.taken && !mine.done) {
                    // taken by a batch that commits it: waits for that commit (soon), keeps the interrupt for after
                    mine.interrupted = true;
                    return;
                }
                Thread.currentThread().interrupt();
                if (mine.done) {
                    return;
                }
                if (leave(mine)) {
                    throw new SQLException("Interrupted while waiting to write to the store", "08000",
                            new InterruptedException());
                }
            }
            throw new SQLException("Interrupted while waiting for the store's commit", "08000",
                    new InterruptedException());
        }
    }

    /**
     * Takes a caller that gives up out of the queue; when no batch is being written, the next in the queue is woken to
     * lead it. Called holding {@link #lock}.
     * @return whether it was still queued (no batch took it)
     */
    private boolean leave(Pending<?> mine) {
        boolean queued = this.queue.remove(mine);
        if (!this.leading) {
            wakeNextLeader();
        }
        else {
            wakeUnsyncedLeftAlone();
        }
        return queued;
    }

    /**
     * Wakes the works that need no durability still queued when no durable write is queued with them: no next batch is
     * sure to come, and they run alone rather than wait for the sync in progress. Called holding {@link #lock}.
     */
    private void wakeUnsyncedLeftAlone() {
        if (!hasSyncedQueued()) {
            wakeQueued();
        }
    }

    /** Wakes every caller still queued. Called holding {@link #lock}. */
    private void wakeQueued() {
        for (Pending<?> pending : this.queue) {
            LockSupport.unpark(pending.thread);
        }
    }

    /**
     * Wakes the first durable write still queued, who leads the next batch (and takes what is queued before it); when
     * none is left, the works that need no durability, which then run alone. Called holding {@link #lock}.
     */
    private void wakeNextLeader() {
        for (Pending<?> pending : this.queue) {
            if (pending.synced) {
                LockSupport.unpark(pending.thread);
                return;
            }
        }
        wakeQueued();
    }

    /** Wakes the callers of a batch, but the leader (which is running). */
    private static void wake(List<Pending<?>> batch) {
        Thread leader = Thread.currentThread();
        for (Pending<?> pending : batch) {
            if (pending.thread != leader) {
                LockSupport.unpark(pending.thread);
            }
        }
    }

    /**
     * Runs the batch and gives each of its callers its outcome; {@code handOff} lets the next batch begin: once this
     * one is durable, or once it is committed when many wait ({@link #PIPELINE_AT}).
     */
    private void execute(List<Pending<?>> batch, Runnable handOff) {
        try {
            if (!together(batch, handOff)) {
                // the transaction was lost (nobody told anything yet): each alone, so that each has its own outcome
                for (Pending<?> pending : batch) {
                    if (!pending.done && !pending.abandoned) {
                        alone(pending);
                        // its caller need not wait for the others' writes
                        LockSupport.unpark(pending.thread);
                    }
                }
            }
        }
        catch (Throwable ex) {
            StoreFailure failure = new StoreFailure(ex);
            for (Pending<?> pending : batch) {
                if (!pending.done) {
                    pending.failed(failure);
                }
            }
        }
        finally {
            wake(batch);
        }
    }

    /** Runs one work in a transaction of its own; whatever it throws is its caller's. */
    private <T> void alone(Pending<T> pending) {
        try {
            // a work that needs no durability waits for no sync here either
            pending.succeeded(JdbcExecutionStore.inTransaction(this.dataSource,
                    pending.synced ? this.customization : null, pending.work));
            this.works.incrementAndGet();
            this.transactions.incrementAndGet();
        }
        catch (Throwable ex) {
            pending.failed(ex);
        }
    }

    /**
     * Runs the works in one transaction, each after a savepoint, commits, waits for the sync.
     * @return {@code false} when the transaction was lost before its commit (a work's failure could not be rolled
     * back to its savepoint): it is rolled back, and the works that have no outcome yet must run again
     */
    private boolean together(List<Pending<?>> batch, Runnable handOff) throws SQLException {
        Object[] results = new Object[batch.size()];
        // the works' own failures, told only once the batch's fate is known: if the transaction is lost, each runs
        // again alone and its caller is told that outcome instead
        Throwable[] failures = new Throwable[batch.size()];
        int committed = 0;
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(false);
            for (int i = 0; i < batch.size(); i++) {
                if (batch.get(i).abandoned) {
                    // its caller gave up (its deadline passed) before the batch came to it: not written
                    failures[i] = new SQLException("The caller gave up before its write", "08000");
                    continue;
                }
                Savepoint savepoint = (batch.size() > 1) ? connection.setSavepoint(WORK_SAVEPOINT) : null;
                try {
                    results[i] = batch.get(i).work.run(connection);
                    committed++;
                }
                catch (Throwable ex) {
                    if (!rolledBackTo(connection, savepoint, ex)) {
                        rollback(connection, ex);
                        if (batch.size() == 1) {
                            batch.get(0).failed(ex);
                            return true;
                        }
                        return false;
                    }
                    failures[i] = ex;
                }
            }
            try {
                connection.commit();
            }
            catch (SQLException | RuntimeException ex) {
                rollback(connection, ex);
                tell(batch, results, failures, ex);
                return true;
            }
            this.works.addAndGet(committed);
            this.transactions.incrementAndGet();
            // what needs no durability is told at the commit, before the sync
            tellUnsynced(batch, results, failures);
            if (queued() >= PIPELINE_AT) {
                // many wait: the next batch is written while this one syncs (its callers are still told only after)
                handOff.run();
            }
            try {
                // not told it is recorded before it would survive a power loss; an interrupt of the leader must not
                // fail the others' writes, which are committed
                this.customization.committedUninterruptibly(connection);
            }
            catch (SQLException | RuntimeException ex) {
                tell(batch, results, failures, ex);
                return true;
            }
            tell(batch, results, failures, null);
        }
        catch (SQLException ex) {
            // no connection, or it failed on closing (those told already keep their outcome): each caller retries
            tell(batch, results, failures, ex);
        }
        return true;
    }

    /** Tells the callers of works that need no durability their outcome, and wakes them. */
    private static void tellUnsynced(List<Pending<?>> batch, Object[] results, Throwable[] failures) {
        for (int i = 0; i < batch.size(); i++) {
            Pending<?> pending = batch.get(i);
            if (!pending.synced && !pending.done) {
                if (failures[i] != null) {
                    pending.failed(failures[i]);
                }
                else {
                    pending.succeededUnchecked(results[i]);
                }
                LockSupport.unpark(pending.thread);
            }
        }
    }

    /**
     * Tells each caller of the batch without an outcome yet: its work's own failure, else the batch's failure (as a
     * failure to reach the store, see {@link #failAll}), else its result.
     */
    private static void tell(List<Pending<?>> batch, Object[] results, Throwable[] failures,
            @Nullable Exception batchFailure) {
        for (int i = 0; i < batch.size(); i++) {
            Pending<?> pending = batch.get(i);
            if (!pending.done && failures[i] != null) {
                pending.failed(failures[i]);
            }
        }
        if (batchFailure != null) {
            failAll(batch, batchFailure);
            return;
        }
        for (int i = 0; i < batch.size(); i++) {
            if (!batch.get(i).done) {
                batch.get(i).succeededUnchecked(results[i]);
            }
        }
    }

    /**
     * Rolls the transaction back to the work's savepoint after {@code failure}; {@code false} when there is none (a
     * work alone) or the transaction itself was lost (H2 rolls a deadlocked transaction back whole).
     */
    private static boolean rolledBackTo(Connection connection, @Nullable Savepoint savepoint, Throwable failure) {
        if (savepoint == null) {
            return false;
        }
        if (failure instanceof SQLException ex && ex.getSQLState() != null
                && (ex.getSQLState().startsWith("40") || ex.getSQLState().startsWith("08"))) {
            return false;
        }
        try {
            connection.rollback(savepoint);
            return true;
        }
        catch (SQLException | RuntimeException ex) {
            failure.addSuppressed(ex);
            return false;
        }
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        }
        catch (SQLException | RuntimeException ex) {
            failure.addSuppressed(ex);
        }
    }

    /**
     * Gives every caller without an outcome the failure of the batch, as a failure to reach the store: it is not
     * their statement that was refused, and each retries its own work.
     */
    private static void failAll(List<Pending<?>> batch, Exception ex) {
        SQLException shared = new SQLException("The store could not commit the writes grouped with this one: "
                + ex.getMessage(), "08000", (ex instanceof SQLException sql) ? sql.getErrorCode() : 0, ex);
        for (Pending<?> pending : batch) {
            if (!pending.done) {
                pending.failed(shared);
            }
        }
    }

    /** How many works wait for the batch in progress to end. */
    int queued() {
        synchronized (this.lock) {
            return this.queue.size();
        }
    }

    /** How many works were committed, and in how many transactions. */
    long[] counts() {
        return new long[] { this.works.get(), this.transactions.get() };
    }

    /** A failure of the batch itself (not of one work), told to each caller as a failure to reach the store. */
    private static final class StoreFailure extends SQLException {

        StoreFailure(Throwable cause) {
            super("The store could not write the writes grouped with this one: " + cause, "08000", cause);
        }
    }

    private static final class Pending<T> {

        final JdbcExecutionStore.SqlWork<T> work;

        /**
         * Whether its caller is told only once the batch is durable; {@code false} for a work that needs no durability,
         * told at the commit, which never leads a batch.
         */
        final boolean synced;

        /** The caller's thread, woken when the work has its outcome or the caller may lead. */
        final Thread thread = Thread.currentThread();

        private volatile boolean done;

        /** Whether a batch took it (it is no longer queued). Guarded by {@link GroupCommit#lock}. */
        private boolean taken;

        /** Whether a work that needs no durability was interrupted once taken (kept for after its commit). */
        private volatile boolean interrupted;

        /** Whether its caller gave up waiting after a batch took it (its deadline passed). */
        private volatile boolean abandoned;

        private @Nullable T result;

        private @Nullable Throwable failure;

        Pending(JdbcExecutionStore.SqlWork<T> work, boolean synced) {
            this.work = work;
            this.synced = synced;
        }

        void succeeded(@Nullable T result) {
            this.result = result;
            this.done = true;
        }

        @SuppressWarnings("unchecked")
        void succeededUnchecked(@Nullable Object result) {
            succeeded((T) result);
        }

        void failed(Throwable failure) {
            this.failure = failure;
            this.done = true;
        }

        @SuppressWarnings("NullAway")
        T outcome() throws SQLException {
            Throwable failure = this.failure;
            if (failure == null) {
                return this.result;
            }
            if (failure instanceof SQLException ex) {
                throw ex;
            }
            if (failure instanceof RuntimeException ex) {
                throw ex;
            }
            if (failure instanceof Error error) {
                throw error;
            }
            throw new SQLException(failure);
        }
    }
}
