package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

import dev.skail.platform.StoreDeadline;

/**
 * Makes the commits of an embedded H2 file durable before anyone is told they are recorded, one {@code fsync} for
 * many commits (group commit).
 * <p>
 * H2 writes a commit to its file ({@code WRITE_DELAY=0}, which the store sets) but leaves it in the operating system's
 * cache: a power loss can take it back. {@code CHECKPOINT SYNC} waits for any write in progress, writes whatever is
 * not written yet and forces the file to the device. A thread that has committed takes a ticket and waits until a sync that began after its ticket has ended;
 * whichever waiting thread finds no sync running performs the next one, for every commit ticketed until then. With
 * one writer that is one sync per commit; with many, one sync covers all the commits that arrived during the
 * previous one, so the cost of a sync is shared instead of queued.
 */
final class H2GroupSync {

    /** Tickets given out: one per commit that waits to be durable. */
    private final AtomicLong tickets = new AtomicLong();

    private final Object lock = new Object();

    /** Every ticket up to this one is durable. Guarded by {@link #lock}. */
    private long durableThrough;

    /** Whether a thread is syncing now. Guarded by {@link #lock}. */
    private boolean syncing;

    private final AtomicLong syncs = new AtomicLong();

    /**
     * Returns once what {@code connection} has committed so far is on the device, syncing on that connection when no
     * other thread is syncing already.
     * @param connection the connection that has just committed (it must be able to run {@code CHECKPOINT SYNC}: an
     * administrator of the database)
     * @throws SQLException when the sync failed: the commit may not survive a power loss, so the caller must not be
     * told it is recorded
     */
    void awaitDurable(Connection connection) throws SQLException {
        awaitDurable(connection, true);
    }

    /**
     * @param interruptible whether an interrupt ends the wait (otherwise it is kept, and the thread's flag set again
     * once the commit is durable: a group commit waits for the others' writes)
     */
    void awaitDurable(Connection connection, boolean interruptible) throws SQLException {
        long ticket = this.tickets.incrementAndGet();
        boolean interrupted = false;
        try {
            long covered;
            synchronized (this.lock) {
                while (true) {
                    if (this.durableThrough >= ticket) {
                        return;
                    }
                    if (!this.syncing) {
                        this.syncing = true;
                        // every ticket given out so far was taken after its commit: this sync covers them all
                        covered = this.tickets.get();
                        break;
                    }
                    try {
                        // a request with a deadline (an HTTP trigger, a fire) answers 503 rather than wait for a disk
                        // that hangs; the commit is made, so this is like a lost acknowledgement: a retry finds it
                        long remaining = StoreDeadline.remainingMillis();
                        if (remaining == 0) {
                            throw new SQLException("The store's sync to disk did not end before the request's "
                                    + "deadline", "08000");
                        }
                        this.lock.wait(Math.max(0, remaining));
                    }
                    catch (InterruptedException ex) {
                        if (interruptible) {
                            Thread.currentThread().interrupt();
                            throw new SQLException("Interrupted while waiting for the store to sync its commits to "
                                    + "disk", "08000", ex);
                        }
                        interrupted = true;
                    }
                }
            }
            boolean synced = false;
            try {
                sync(connection);
                this.syncs.incrementAndGet();
                synced = true;
            }
            finally {
                synchronized (this.lock) {
                    if (synced) {
                        this.durableThrough = Math.max(this.durableThrough, covered);
                    }
                    this.syncing = false;
                    this.lock.notifyAll();
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Syncs on {@code connection}: H2 stores the changes not yet written, then forces the file to the device. */
    static void sync(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        try (Statement statement = connection.createStatement()) {
            statement.execute("CHECKPOINT SYNC");
        }
        if (!autoCommit) {
            connection.commit();
        }
    }

    /** How many commits waited to be durable. */
    long commits() {
        return this.tickets.get();
    }

    /** How many syncs made them so. */
    long syncs() {
        return this.syncs.get();
    }
}
