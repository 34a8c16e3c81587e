package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells the instances that share a PostgreSQL database which executions have ended (their callers may wait there), once
 * each end has committed: the ends announced while one notification is sent go together in the next, one statement and
 * one transaction, on a thread of the store's own.
 * <p>
 * Not in the end's own transaction: PostgreSQL serializes the commits of all transactions that notify (a lock of the
 * database held from before the commit until its log is flushed), so an end that notified in its transaction could not
 * share a log flush with any other end; under many ends at once (delays woken together) that lock bounded the ends
 * per second. A notification is a hint, not a record: a send that fails is tried again a second later with the ends
 * announced meanwhile (at most {@link #MAX_KEPT} ends wait; past that, an end is not announced), and one that is never
 * sent (the process stops just after the end's commit, or the end was past that bound) leaves the waiters elsewhere
 * to their next read of the store (the runtime's recheck, every few seconds).
 */
final class PostgreSqlEndAnnouncements implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(PostgreSqlEndAnnouncements.class);

    /**
     * The most ends one statement announces (PostgreSQL checks each notification of a transaction against the ones
     * before it: a few hundred keep that check short).
     */
    static final int MAX_BATCH = 200;

    /** The most ends waiting to be announced (while sends fail); past that, an end is left to the waiters' rechecks. */
    static final int MAX_KEPT = 10_000;

    /** How long after a failed send the next is tried. */
    private static final long RETRY_MILLIS = 1_000;

    private static final String NOTIFY = "SELECT COUNT(pg_notify(" + PostgreSqlJdbcCustomization.ENDED_CHANNEL
            + ", id)) FROM unnest(CAST(? AS text[])) AS ended(id)";

    private final DataSource dataSource;

    /** The ends to announce, at most {@link #MAX_KEPT}. */
    private final LinkedBlockingQueue<String> ended = new LinkedBlockingQueue<>(MAX_KEPT);

    /**
     * Whether a send is queued, runs or waits to be tried again: one at a time, the ends that come meanwhile wait for
     * the next.
     */
    private final AtomicBoolean sending = new AtomicBoolean();

    /** At most one thread, started by an end announced and ended after 30 seconds without any (daemon). */
    private final ScheduledThreadPoolExecutor sender;

    private final AtomicLong statements = new AtomicLong();

    private final AtomicLong announced = new AtomicLong();

    private volatile boolean failing;

    private volatile boolean closed;

    PostgreSqlEndAnnouncements(DataSource dataSource) {
        this.dataSource = dataSource;
        this.sender = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, "skail-ends-announcer");
            thread.setDaemon(true);
            return thread;
        });
        this.sender.setKeepAliveTime(30, TimeUnit.SECONDS);
        this.sender.allowCoreThreadTimeOut(true);
        // a retry waiting when the store closes is dropped; a send queued already runs
        this.sender.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /**
     * Announces the end of this execution, soon: call it once the end has committed, or when its commit is in doubt
     * (a needless announcement costs its hearers one read).
     */
    void announce(String taskId) {
        if (this.closed || !this.ended.offer(taskId)) {
            return;
        }
        sendSoon();
    }

    private void sendSoon() {
        if (!this.ended.isEmpty() && !this.closed && this.sending.compareAndSet(false, true)) {
            try {
                this.sender.execute(this::send);
            }
            catch (RejectedExecutionException ex) {
                // closed meanwhile
                this.sending.set(false);
            }
        }
    }

    private void send() {
        List<String> ids = new ArrayList<>();
        while (true) {
            ids.clear();
            this.ended.drainTo(ids, MAX_BATCH);
            if (ids.isEmpty()) {
                break;
            }
            if (!notify(ids)) {
                keep(ids);
                try {
                    // still sending: the ends announced meanwhile go with the retry
                    this.sender.schedule(this::send, RETRY_MILLIS, TimeUnit.MILLISECONDS);
                    return;
                }
                catch (RejectedExecutionException ex) {
                    // closed meanwhile
                    break;
                }
            }
        }
        this.sending.set(false);
        // an end announced after the last poll, before the flag was cleared, is sent by a send of its own
        sendSoon();
    }

    /** Puts back the ends a failed send carried, as far as {@link #MAX_KEPT} allows. */
    private void keep(List<String> ids) {
        ids.forEach(this.ended::offer);
    }

    private boolean notify(List<String> ids) {
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(NOTIFY)) {
                ps.setArray(1, connection.createArrayOf("text", ids.toArray()));
                ps.execute();
            }
            this.statements.incrementAndGet();
            this.announced.addAndGet(ids.size());
            if (this.failing) {
                this.failing = false;
                logger.info("skail store: ends are announced to the other instances again");
            }
            return true;
        }
        catch (SQLException | RuntimeException ex) {
            if (!this.failing) {
                this.failing = true;
                logger.warn("skail store: could not announce " + ids.size() + " ended executions to the other "
                        + "instances (tried again every second; their waiting callers also read the store at their "
                        + "next recheck): " + ex.getMessage());
            }
            return false;
        }
    }

    /** Statements sent, and ends they announced (tests). */
    long[] counts() {
        return new long[] { this.statements.get(), this.announced.get() };
    }

    /** Ends waiting to be announced (tests). */
    int waiting() {
        return this.ended.size();
    }

    /** Sends what is announced already (within a second), then stops: later ends are not announced. */
    @Override
    public void close() {
        this.closed = true;
        this.sender.shutdown();
        try {
            if (!this.sender.awaitTermination(1, TimeUnit.SECONDS)) {
                this.sender.shutdownNow();
            }
        }
        catch (InterruptedException ex) {
            this.sender.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
