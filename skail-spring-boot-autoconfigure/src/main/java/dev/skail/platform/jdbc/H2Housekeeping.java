package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.MVStore;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the embedded H2 file compact while the store runs: what H2's own background writer would do, which the store
 * does not have.
 * <p>
 * H2 writes each commit as a new chunk of its file and never changes a chunk afterwards; a chunk whose pages were all
 * written again later is dead, and its space is reused once the chunk is older than the database's retention time. A
 * chunk that keeps a few live pages (rows no later commit touched: the steps of executions that ended) stays, whole,
 * for ever, unless something rewrites those pages into a new chunk. H2 does that in its background writer, which the
 * store turns off ({@code WRITE_DELAY=0}: every commit is written before it returns). Without it the file grew by
 * about 55 KB an execution of ten steps, without bound, and every commit got slower with the number of chunks (H2
 * updates its map of the chunks' metadata with each commit, and holds every chunk's entry in memory): about 240 µs a
 * commit on a new file, 690 µs after 48,000 executions (measured with a program of one thread committing such
 * steps).
 * <p>
 * So four times a second, when the store has committed anything since the last time and the file holds less than
 * {@link #TARGET_FILL_RATE} % live data, H2's {@link MVStore#compact(int, int)} rewrites the live pages of its emptiest
 * chunks (at most {@link #WRITE_LIMIT} bytes of them), and a sync makes that rewrite durable, shared with the commits
 * waiting for one. The rewrite holds H2's store lock, so every commit waits for it: small rounds often rather than one
 * large one a second keep that wait short (during benchmark E, 1 MiB once a second held the lock for 9–20 ms median,
 * 27–41 ms at most; 256 KiB rounds 4 ms median, 17–21 ms at most). This is the rewrite H2's background writer makes,
 * from one thread of the store's, on H2's own locks. The space of the chunks it empties is reused once H2's retention
 * allows; see {@link H2PreallocatedFilePath} for why that is safe against a power loss.
 */
final class H2Housekeeping implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(H2Housekeeping.class);

    /** Below this share of live data in the file (%), the emptiest chunks have their live pages written again. */
    static final int TARGET_FILL_RATE = 50;

    /** At most this many bytes of live pages are written again in a round. */
    static final int WRITE_LIMIT = 256 * 1024;

    /** The time from the end of a round to the start of the next. */
    static final long PERIOD_MILLIS = 250;

    private final DataSource dataSource;

    private final H2GroupSync sync;

    private final ScheduledExecutorService scheduler;

    private long commitsSeen = -1;

    private volatile boolean disabled;

    /** Whether the last round failed (its failure logged as a warning once). */
    private boolean failed;

    /** Rounds run (each a compaction, or a look that found nothing committed since the last). */
    private final java.util.concurrent.atomic.AtomicLong rounds = new java.util.concurrent.atomic.AtomicLong();

    /** The name of the thread that compacts (and syncs its rewrites). */
    static final String THREAD_NAME = "skail:h2-housekeeping";

    H2Housekeeping(DataSource dataSource, H2GroupSync sync) {
        this.dataSource = dataSource;
        this.sync = sync;
        this.scheduler = Executors.newSingleThreadScheduledExecutor((runnable) -> {
            Thread thread = new Thread(runnable, THREAD_NAME);
            thread.setDaemon(true);
            return thread;
        });
    }

    void start() {
        this.scheduler.scheduleWithFixedDelay(this::run, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void run() {
        try {
            long commits = this.sync.commits();
            if (!this.disabled && commits != this.commitsSeen) {
                compact();
                // the compaction's own sync took a ticket: not a commit of the store's to compact after
                this.commitsSeen = this.sync.commits();
            }
            this.failed = false;
        }
        catch (LinkageError ex) {
            disable(ex);
        }
        catch (Throwable ex) {
            // a closed or broken database: the store's own operations say so; the next round tries again
            if (!this.failed) {
                logger.warn("skail store: compacting the H2 file failed (tried again every " + PERIOD_MILLIS + " ms): "
                        + ex);
            }
            else {
                logger.debug("skail store: compacting the H2 file failed again", ex);
            }
            this.failed = true;
        }
        finally {
            this.rounds.incrementAndGet();
        }
    }

    private void disable(LinkageError ex) {
        // an H2 whose internals differ from the version skail was built with: the file is not compacted
        this.disabled = true;
        logger.warn("skail store: this H2 (" + org.h2.engine.Constants.FULL_VERSION + ") cannot be compacted while "
                + "it runs: its file keeps the space of every chunk a live page is left in (" + ex + ")");
    }

    /** How many rounds have run since the store started. */
    long rounds() {
        return this.rounds.get();
    }

    /**
     * Rewrites the live pages of the emptiest chunks, and makes the rewrite durable.
     * @return whether any page was written again
     */
    boolean compact() throws SQLException {
        return compact(TARGET_FILL_RATE, WRITE_LIMIT);
    }

    /**
     * As {@link #compact()}: when the file holds less than {@code targetFillRate} % live data, H2 writes again the live
     * pages of its emptiest chunks, at most {@code writeLimit} bytes of them. H2 gives up when its store lock is busy
     * for long (another round tries again).
     */
    boolean compact(int targetFillRate, int writeLimit) throws SQLException {
        try (Connection connection = this.dataSource.getConnection()) {
            MVStore store = mvStore(connection);
            if (store == null || store.isClosed()) {
                return false;
            }
            boolean rewritten = store.compact(targetFillRate, writeLimit);
            if (rewritten) {
                this.sync.awaitDurable(connection, false);
            }
            return rewritten;
        }
    }

    private static @Nullable MVStore mvStore(Connection connection) throws SQLException {
        Session session = connection.unwrap(JdbcConnection.class).getSession();
        if (!(session instanceof SessionLocal local) || local.getDatabase().getStore() == null) {
            return null;
        }
        return local.getDatabase().getStore().getMvStore();
    }

    /**
     * Stops the rounds: a round running ends first (not interrupted: an interrupt in H2's file I/O closes its file
     * channel under the database).
     */
    @Override
    public void close() {
        this.scheduler.shutdown();
        try {
            this.scheduler.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
