package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes the commits of an embedded H2 file durable before anyone is told they are recorded, one {@code fsync} for
 * many commits (group commit).
 * <p>
 * H2 writes a commit to its file at once ({@code WRITE_DELAY=0}) or within {@code WRITE_DELAY} milliseconds (500 by
 * default), and either way leaves it in the operating system's cache: a power loss can take it back.
 * {@code CHECKPOINT SYNC} writes whatever is not written yet, all the waiting commits in one go, and forces the file to
 * the device. A thread that has committed takes a ticket and waits until a sync that began after its ticket has ended;
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
        long ticket = this.tickets.incrementAndGet();
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
                    this.lock.wait();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new SQLException("Interrupted while waiting for the store to sync its commits to disk",
                            "08000", ex);
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
