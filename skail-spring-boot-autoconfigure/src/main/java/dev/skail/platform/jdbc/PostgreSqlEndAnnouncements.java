package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
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
 * per second. A notification is a hint, not a record: one that is never sent (the process stops first, the database
 * refuses it) leaves the waiters elsewhere to their next read of the store (the runtime's recheck, every few seconds),
 * as a listener that lost its connection does.
 */
final class PostgreSqlEndAnnouncements implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(PostgreSqlEndAnnouncements.class);

    /** The most ends one statement announces. */
    static final int MAX_BATCH = 1000;

    private static final String NOTIFY = "SELECT COUNT(pg_notify(" + PostgreSqlJdbcCustomization.ENDED_CHANNEL
            + ", id)) FROM unnest(CAST(? AS text[])) AS ended(id)";

    private final DataSource dataSource;

    private final ConcurrentLinkedQueue<String> ended = new ConcurrentLinkedQueue<>();

    /** Whether a send is queued or runs: one at a time, the ends that come meanwhile wait for the next. */
    private final AtomicBoolean sending = new AtomicBoolean();

    /** One thread, started by the first end announced and kept (daemon). */
    private final ThreadPoolExecutor sender;

    private final AtomicLong statements = new AtomicLong();

    private final AtomicLong announced = new AtomicLong();

    private volatile boolean failing;

    private volatile boolean closed;

    PostgreSqlEndAnnouncements(DataSource dataSource) {
        this.dataSource = dataSource;
        this.sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), (task) -> {
            Thread thread = new Thread(task, "skail-ends-announcer");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Announces the end of this execution, soon: call it once the end has committed. */
    void announce(String taskId) {
        if (this.closed) {
            return;
        }
        this.ended.add(taskId);
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
        try {
            List<String> ids = new ArrayList<>();
            while (true) {
                ids.clear();
                for (String id; ids.size() < MAX_BATCH && (id = this.ended.poll()) != null;) {
                    ids.add(id);
                }
                if (ids.isEmpty()) {
                    return;
                }
                notify(ids);
            }
        }
        finally {
            this.sending.set(false);
            // an end announced after the last poll, before the flag was cleared, is sent by a send of its own
            sendSoon();
        }
    }

    private void notify(List<String> ids) {
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
        }
        catch (SQLException | RuntimeException ex) {
            if (!this.failing) {
                this.failing = true;
                logger.warn("skail store: could not announce " + ids.size() + " ended executions to the other "
                        + "instances (their waiting callers read the store at their next recheck): " + ex.getMessage());
            }
        }
    }

    /** Statements sent, and ends they announced (tests). */
    long[] counts() {
        return new long[] { this.statements.get(), this.announced.get() };
    }

    /** Sends what is announced already (within a second), then stops: later ends are not announced. */
    @Override
    public void close() throws InterruptedException {
        this.closed = true;
        this.sender.shutdown();
        if (!this.sender.awaitTermination(1, TimeUnit.SECONDS)) {
            this.sender.shutdownNow();
        }
    }
}
