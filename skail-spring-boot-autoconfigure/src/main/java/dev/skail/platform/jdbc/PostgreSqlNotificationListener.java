package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.skail.platform.ExecutionStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Listens on a PostgreSQL channel and calls {@code wakeUp} for every notification, on a daemon thread of its own
 * that holds one connection of the pool while it listens. When the connection breaks, it connects again with a
 * growing pause (the worker's polls go on meanwhile), and wakes up once it listens again, since work may have become
 * due while nobody listened.
 */
final class PostgreSqlNotificationListener implements ExecutionStore.Listening {

    private static final Log logger = LogFactory.getLog(PostgreSqlNotificationListener.class);

    private static final AtomicInteger threads = new AtomicInteger();

    /** How long one wait for notifications lasts: how soon {@link #close()} is noticed. */
    private static final int WAIT_MILLIS = 500;

    /** How often an idle connection is checked: a connection the network dropped silently brings nothing. */
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final long INITIAL_PAUSE_MILLIS = 100;

    private static final long MAX_PAUSE_MILLIS = 10_000;

    private final DataSource dataSource;

    /** The channel's name, asked of each connection that listens (it depends on the connection's schema). */
    private final ChannelName channel;

    private final Runnable wakeUp;

    /** What each notification's payload goes to, when the payloads matter; else {@link #wakeUp} runs once a batch. */
    private final @Nullable Consumer<String> payloads;

    private final Thread thread;

    private final Object pause = new Object();

    private volatile boolean running = true;

    /** Whether the connection listens (the listening thread's own state). */
    private boolean listening;

    /** Whether the connection listens, for other threads: set after LISTEN and before {@link #wakeUp}. */
    private volatile boolean listens;

    /** Whether the last attempt to listen failed (the listening thread's own state). */
    private boolean failing;

    PostgreSqlNotificationListener(DataSource dataSource, ChannelName channel, Runnable wakeUp) {
        this(dataSource, channel, wakeUp, null);
    }

    /**
     * @param wakeUp what runs whenever listening starts (again)
     * @param payloads what each notification's payload goes to
     */
    PostgreSqlNotificationListener(DataSource dataSource, ChannelName channel, Runnable wakeUp,
            @Nullable Consumer<String> payloads) {
        this.dataSource = dataSource;
        this.channel = channel;
        this.wakeUp = wakeUp;
        this.payloads = payloads;
        this.thread = new Thread(this::run, "skail-listener-" + threads.incrementAndGet());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        long pauseMillis = INITIAL_PAUSE_MILLIS;
        while (this.running) {
            try {
                listen();
            }
            catch (SQLException | RuntimeException ex) {
                if (!this.running) {
                    return;
                }
                if (!this.failing) {
                    logger.warn("skail cannot listen for due work on PostgreSQL (" + ex.getMessage() + "); polling "
                            + "meanwhile, and listening again when the database answers");
                    this.failing = true;
                }
                if (this.listening) {
                    // it listened until now: the database is likely back soon (a restart, a dropped connection)
                    this.listening = false;
                    pauseMillis = INITIAL_PAUSE_MILLIS;
                }
                pause(pauseMillis);
                pauseMillis = Math.min(pauseMillis * 2, MAX_PAUSE_MILLIS);
            }
        }
    }

    /** Listens until closed; throws when the connection fails. */
    private void listen() throws SQLException {
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            PGConnection notifications = connection.unwrap(PGConnection.class);
            try (Statement statement = connection.createStatement()) {
                statement.execute("LISTEN " + this.channel.of(connection));
            }
            try {
                this.listening = true;
                this.listens = true;
                if (this.failing) {
                    logger.info("skail listens for due work on PostgreSQL again");
                    this.failing = false;
                }
                this.wakeUp.run();
                long checked = System.nanoTime();
                while (this.running) {
                    PGNotification[] received = notifications.getNotifications(WAIT_MILLIS);
                    if (received != null && received.length > 0 && this.payloads != null) {
                        for (PGNotification notification : received) {
                            this.payloads.accept(notification.getParameter());
                        }
                    }
                    else if (received != null && received.length > 0) {
                        this.wakeUp.run();
                    }
                    else if (System.nanoTime() - checked > CHECK_NANOS) {
                        if (!connection.isValid(5)) {
                            throw new SQLTransientConnectionException("the listening connection does not answer");
                        }
                        checked = System.nanoTime();
                    }
                }
            }
            finally {
                this.listens = false;
                unlisten(connection);
            }
        }
    }

    /** Stops listening before the connection goes back to the pool, or makes sure the pool does not keep it. */
    private static void unlisten(Connection connection) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
        }
        catch (SQLException ex) {
            try {
                connection.abort(Runnable::run);
            }
            catch (SQLException | RuntimeException abortFailure) {
                // broken already
            }
        }
    }

    private void pause(long millis) {
        synchronized (this.pause) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
            long left = millis;
            while (this.running && left > 0) {
                try {
                    this.pause.wait(left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
                left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime());
            }
        }
    }

    /** The name of the channel to listen on, for a connection of the store's. */
    @FunctionalInterface
    interface ChannelName {

        String of(Connection connection) throws SQLException;
    }

    @Override
    public boolean listening() {
        return this.listens && this.running;
    }

    /** Stops listening and gives the connection back; waits for the thread a little longer than one wait. */
    @Override
    public void close() {
        this.running = false;
        synchronized (this.pause) {
            this.pause.notifyAll();
        }
        if (Thread.currentThread() != this.thread) {
            try {
                this.thread.join(WAIT_MILLIS * 4L);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
