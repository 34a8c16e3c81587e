package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

import dev.skail.platform.Lease;
import org.h2.engine.SessionLocal;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The store on H2: one process (the file lock sees to that), which wakes its own worker, so no notifications.
 * <p>
 * A claim is one statement, an {@code UPDATE} read back through {@code FINAL TABLE}. H2 2.4 accepts
 * {@code FOR UPDATE SKIP LOCKED} in the reads of due work, but then reads every due row before it stops (a claim
 * took over a second with 200,000 executions due, 2 ms without it), so it is left out: the {@code UPDATE} locks
 * the rows it takes, and when another claim took one first, it waits for that claim to commit and checks again that
 * the row is due. Only runtimes in this one process ever wait so, for a few milliseconds.
 */
final class H2JdbcCustomization extends JdbcCustomization {

    private static final Log logger = LogFactory.getLog(H2JdbcCustomization.class);

    private static final String CLAIM = "SELECT task_id, lease_token FROM FINAL TABLE (UPDATE skail_execution "
            + "SET status = 'RUNNING', lease_owner = ?, lease_token = CAST(RANDOM_UUID() AS VARCHAR), lease_until = ?, "
            + "updated_at = ? WHERE task_id IN (" + dueTaskIds("") + ") AND ((status IN ('PENDING', 'WAITING') "
            + "AND next_run_at <= ?) OR (status = 'RUNNING' AND lease_until < ?)))";

    /**
     * The longest JSON document (arguments, a result, an error) H2 keeps in its row, in bytes; a longer one goes to
     * H2's separate storage of large objects. H2's default is 256 bytes, under which an order with a few items does
     * not fit: each such step then also wrote the large-object maps of H2 (measured, a 2 KB argument and result
     * committed and synced: 0.41 ms a step against 0.22 ms in the row; 8 KB: 0.50 against 0.23 ms) and was read back
     * from them. A persistent setting of the database; documents already stored stay where they are.
     */
    static final int MAX_LENGTH_INPLACE_LOB = 64 * 1024;

    /** H2's error code for a statement only an administrator may run. */
    private static final int ADMIN_RIGHTS_REQUIRED = 90040;

    /** Syncs the commits of a database file this process owns; {@code null} in memory or through a server. */
    private volatile @Nullable H2GroupSync groupSync;

    /**
     * H2's {@code WRITE_DELAY} while the store's log holds the commits: H2 writes them to its file in the background,
     * at most this many milliseconds after they committed (or sooner, when much is unwritten).
     */
    static final int LOGGED_WRITE_DELAY = 1000;

    /** The store's tables whose rows the log carries (every table with a primary key). */
    static final List<String> LOGGED_TABLES = List.of("skail_execution", "skail_step", "skail_attempt",
            "skail_event", "skail_runtime", "skail_tag", "skail_schedule");

    /** The log that holds the commits of this store's database file; {@code null} without one. */
    private volatile @Nullable H2RedoLog log;

    /** The H2 database the log belongs to (what the triggers see), and the H2 name of its file. */
    private @Nullable Object h2Database;

    private @Nullable String h2FileName;

    /** The store's data source (with the log), for checkpoints. */
    private volatile @Nullable DataSource logged;

    /** One checkpoint at a time. */
    private final Object checkpoints = new Object();

    /**
     * Waits for the commit to be on the device (see {@link H2GroupSync}) when the database is a file this process
     * owns. A database in memory loses everything with the process anyway; one reached through an H2 server is that
     * server's business.
     */
    @Override
    void committed(Connection connection) throws SQLException {
        H2GroupSync sync = this.groupSync;
        if (sync != null) {
            sync.awaitDurable(connection);
        }
    }

    @Override
    void committedUninterruptibly(Connection connection) throws SQLException {
        H2GroupSync sync = this.groupSync;
        if (sync != null) {
            sync.awaitDurable(connection, false);
        }
    }

    @Override
    DataSource dataSource(DataSource given) {
        H2LoggedDataSource logged = new H2LoggedDataSource(given, () -> this.log, this::sameDatabase);
        this.logged = logged;
        return logged;
    }

    /**
     * Replays what the store's log holds into the database (a crash left it), forces the file, and deletes the log.
     * Only for a file this process owns, through the {@code skail:} file system (the only one whose writes the log
     * goes ahead of).
     */
    @Override
    void recover(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (!usesLog(connection.getMetaData().getURL())) {
                return;
            }
            SessionLocal session = java.util.Objects.requireNonNull(H2RowCapture.session(connection));
            java.nio.file.Path file = fileOf(session);
            try {
                if (H2RedoLog.segmentsOf(file).isEmpty()) {
                    return;
                }
                long started = System.nanoTime();
                stopBackgroundWrites(connection);
                int replayed = H2RedoLog.replay(file, connection);
                checkpoint(connection);
                H2RedoLog.deleteSegments(file);
                logger.info("skail store: " + replayed + " transaction(s) replayed from its log in "
                        + (System.nanoTime() - started) / 1_000_000 + " ms");
            }
            catch (java.io.IOException ex) {
                throw new SQLException("The skail store could not read its log: " + ex.getMessage(), "08000", ex);
            }
        }
    }

    /**
     * Writes what H2 has not written to its file and forces it, with no background write of H2's in hand:
     * {@code WRITE_DELAY 0} stops H2's writer once its writes are done, and {@code CHECKPOINT SYNC} then writes
     * the rest and forces the file. Leaves H2 at {@code WRITE_DELAY 0}.
     */
    private static void checkpoint(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET WRITE_DELAY 0");
            statement.execute("CHECKPOINT SYNC");
        }
        if (!autoCommit) {
            connection.commit();
        }
    }

    /**
     * Stops H2's background writer ({@code WRITE_DELAY 0}): a replay writes many transactions, which H2 then writes
     * as each commits rather than in the background while the next ones are being applied.
     */
    private static void stopBackgroundWrites(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET WRITE_DELAY 0");
        }
    }

    /** Appends went on in segment {@code number}: H2's file is forced, then the segments before it go. */
    private void segmentFull(H2RedoLog log, long number) {
        synchronized (this.checkpoints) {
            DataSource dataSource = this.logged;
            if (this.log != log || dataSource == null) {
                return;
            }
            try (Connection connection = dataSource.getConnection()) {
                try {
                    checkpoint(connection);
                }
                finally {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SET WRITE_DELAY " + LOGGED_WRITE_DELAY);
                    }
                }
                log.deleteSegmentsBefore(number);
            }
            catch (SQLException | java.io.IOException | RuntimeException ex) {
                // the segments stay (replayed again after a crash: harmless); the next checkpoint deletes them
                logger.warn("skail store: a checkpoint of its log failed: " + ex.getMessage());
            }
        }
    }

    /**
     * Makes H2's file hold everything and stops the log, when the store closes: the next start has nothing to replay.
     */
    @Override
    void closing() {
        synchronized (this.checkpoints) {
            H2RedoLog log = this.log;
            DataSource dataSource = this.logged;
            if (log == null || dataSource == null) {
                return;
            }
            boolean checkpointed = false;
            log.lock.lock();
            try (Connection connection = dataSource.getConnection()) {
                checkpoint(connection);
                checkpointed = true;
            }
            catch (SQLException | RuntimeException ex) {
                logger.warn("skail store: could not write everything to its file on closing (replayed from its log "
                        + "at the next start): " + ex.getMessage());
            }
            finally {
                stopLog(log);
                log.lock.unlock();
            }
            if (checkpointed) {
                try {
                    H2RedoLog.deleteSegments(java.nio.file.Path.of(stripScheme(
                            java.util.Objects.requireNonNull(this.h2FileName))));
                }
                catch (java.io.IOException ex) {
                    logger.warn("skail store: could not delete its log (replayed at the next start, harmlessly): "
                            + ex.getMessage());
                }
            }
        }
    }

    /**
     * Checks that the connection's database is the one the log is active for. H2 closes its database after a write
     * that failed (a full disk, say), and opens the file again for the next connection: that file may lack commits
     * the log holds (H2 writes in the background). Before anyone reads or writes the reopened database, what the log
     * holds is replayed into it, and the log is made active for it.
     */
    private void sameDatabase(H2RedoLog log, Connection connection) throws SQLException {
        SessionLocal session = H2RowCapture.session(connection);
        if (session == null || session.getDatabase() == log.database()) {
            return;
        }
        synchronized (this.checkpoints) {
            log.lock.lock();
            try {
                Object reopened = session.getDatabase();
                if (reopened == log.database() || this.log != log) {
                    return;
                }
                long started = System.nanoTime();
                stopBackgroundWrites(connection);
                int replayed = H2RedoLog.replay(log.file(), connection);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET WRITE_DELAY " + LOGGED_WRITE_DELAY);
                }
                log.rebind(reopened);
                this.h2Database = reopened;
                logger.warn("skail store: H2 opened its file again; " + replayed + " transaction(s) replayed from "
                        + "the store's log in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            }
            catch (java.io.IOException ex) {
                throw new SQLException("The skail store could not read its log: " + ex.getMessage(), "08000", ex);
            }
            finally {
                log.lock.unlock();
            }
        }
    }

    /** With the log, whether it would take a write: its file system has room for it and for H2's file. */
    @Override
    void probeWrite(Connection connection) throws SQLException {
        H2RedoLog log = this.log;
        if (log != null) {
            try {
                log.checkSpace(true);
            }
            catch (java.io.IOException ex) {
                throw new SQLException("The store could not write its log: " + ex.getMessage(), "08000", ex);
            }
        }
    }

    /** From now on, commits are synced by {@code CHECKPOINT SYNC} again, and the log is closed. */
    private void stopLog(H2RedoLog log) {
        this.groupSync = new H2GroupSync();
        this.log = null;
        Object database = this.h2Database;
        if (database != null) {
            log.deactivate(database);
        }
        String fileName = this.h2FileName;
        if (fileName != null) {
            H2PreallocatedFilePath.beforeWrites(fileName + ".mv.db", null);
        }
        try {
            log.close();
        }
        catch (java.io.IOException ex) {
            // closed anyway
        }
    }

    /** The database file of a session, as a path ({@code /dir/skail} for {@code /dir/skail.mv.db}). */
    private static java.nio.file.Path fileOf(SessionLocal session) {
        return java.nio.file.Path.of(stripScheme(session.getDatabase().getDatabasePath())).toAbsolutePath();
    }

    private static String stripScheme(String h2Path) {
        String prefix = H2PreallocatedFilePath.SCHEME + ":";
        return h2Path.startsWith(prefix) ? h2Path.substring(prefix.length()) : h2Path;
    }

    /** Whether the store's commits go through its log: an H2 file this process owns, through {@code skail:}. */
    static boolean usesLog(String url) {
        return isOwnedByThisProcess(url)
                && url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:" + H2PreallocatedFilePath.SCHEME + ":");
    }

    @Override
    boolean ownedByThisProcess() {
        return this.groupSync != null;
    }

    @Override
    long @Nullable [] syncs() {
        H2GroupSync sync = this.groupSync;
        return (sync != null) ? new long[] { sync.commits(), sync.syncs() } : null;
    }

    @Override
    List<Lease> claimDue(Connection connection, Claim claim) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(CLAIM)) {
            ps.setString(1, claim.owner());
            ps.setLong(2, claim.leaseUntil());
            ps.setLong(3, claim.now());
            int index = bindDue(ps, 4, claim);
            ps.setLong(index++, claim.now());
            ps.setLong(index, claim.now());
            return leases(ps, claim.owner());
        }
    }

    /**
     * Runs the migration alone among the stores of this process (the only one that opens the database): two of them
     * starting at once would both find the schema missing.
     */
    @Override
    <T> T migrating(DataSource dataSource, Migration<T> migration) throws SQLException {
        synchronized (H2JdbcCustomization.class) {
            return migration.run();
        }
    }

    /**
     * In a file that only this process can open, every RUNNING execution was left so by a process that died: their
     * leases end now, so that they are taken back at once rather than a lease later.
     */
    @Override
    void started(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (!isOwnedByThisProcess(connection.getMetaData().getURL())) {
                return;
            }
            try {
                // H2 with a WRITE_DELAY above 0 writes in the background through executors of its own, and a sync
                // that finds nothing left to write does not wait for a write they have in hand: it could force the
                // file before that commit is in it. At 0 there is no such writer, every write happens under H2's
                // store lock, and CHECKPOINT SYNC (which takes that lock) covers every commit made before it.
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SET WRITE_DELAY 0");
                    statement.execute("SET MAX_LENGTH_INPLACE_LOB " + MAX_LENGTH_INPLACE_LOB);
                }
                H2GroupSync.sync(connection);
            }
            catch (SQLException ex) {
                if (ex.getErrorCode() == ADMIN_RIGHTS_REQUIRED) {
                    throw new SQLException("The skail store's H2 user must be an administrator of the database: "
                            + "skail runs CHECKPOINT SYNC so that what it records is on disk before anyone is told "
                            + "(grant it with ALTER USER ... ADMIN TRUE, or let skail create its own database)",
                            ex.getSQLState(), ex.getErrorCode(), ex);
                }
                throw ex;
            }
            try (Statement statement = connection.createStatement()) {
                int expired = statement.executeUpdate("UPDATE skail_execution SET lease_until = 0 "
                        + "WHERE status = 'RUNNING'");
                if (expired > 0) {
                    logger.info("skail store: " + expired + " execution(s) left running by a process that ended "
                            + "are taken back now");
                }
            }
            if (usesLog(connection.getMetaData().getURL())) {
                startLog(connection);
            }
            else {
                H2GroupSync.sync(connection);
                this.groupSync = new H2GroupSync();
            }
        }
    }

    /**
     * Has every commit of the store go through its log from now on: the triggers that hand the rows to it, H2's file
     * forced (what is there so far needs no log), a new log, and H2 writing in the background.
     */
    private void startLog(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String table : LOGGED_TABLES) {
                statement.execute("CREATE TRIGGER IF NOT EXISTS " + table + "_logged AFTER INSERT, UPDATE, DELETE ON "
                        + table + " FOR EACH ROW CALL '" + H2RowCapture.class.getName() + "'");
            }
        }
        checkpoint(connection);
        SessionLocal session = java.util.Objects.requireNonNull(H2RowCapture.session(connection));
        java.nio.file.Path file = fileOf(session);
        H2RedoLog log;
        try {
            // replayed at the start and checkpointed since: nothing in them is missing from the file
            H2RedoLog.deleteSegments(file);
            log = H2RedoLog.begin(file, this::segmentFull);
        }
        catch (java.io.IOException | RuntimeException ex) {
            // a disk too full for a segment, say: every commit is then written and synced by H2 itself, as with a
            // jdbc:h2:file: URL (slower, as durable)
            logger.warn("skail store: could not begin its log (" + ex.getMessage() + "); H2 writes and syncs each "
                    + "commit itself instead");
            this.groupSync = new H2GroupSync();
            return;
        }
        Object database = session.getDatabase();
        String fileName = session.getDatabase().getDatabasePath();
        this.h2Database = database;
        this.h2FileName = fileName;
        H2PreallocatedFilePath.beforeWrites(fileName + ".mv.db", log::force);
        log.activate(database);
        this.log = log;
        this.groupSync = new H2GroupSync((ignored) -> {
            try {
                log.force();
            }
            catch (java.io.IOException ex) {
                throw new SQLException("The skail store could not force its log to disk: " + ex.getMessage(),
                        "08000", ex);
            }
        });
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET WRITE_DELAY " + LOGGED_WRITE_DELAY);
        }
    }

    /**
     * Whether only this process can open the database: an embedded file, not in memory (nothing survives the
     * process), not through a server ({@code tcp:}, {@code ssl:}, {@code AUTO_SERVER=TRUE}: other processes too).
     */
    static boolean isOwnedByThisProcess(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("jdbc:h2:")) {
            return false;
        }
        String database = lower.substring("jdbc:h2:".length());
        if (database.startsWith("mem:") || database.startsWith("memfs:") || database.startsWith("memlzf:")
                || database.startsWith("tcp:") || database.startsWith("ssl:") || database.startsWith("zip:")) {
            return false;
        }
        return !lower.replace(" ", "").contains(";auto_server=true");
    }
}
