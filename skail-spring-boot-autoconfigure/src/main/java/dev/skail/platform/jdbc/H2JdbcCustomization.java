package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import javax.sql.DataSource;

import dev.skail.platform.Lease;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The store on H2: one process (the file lock sees to that), which wakes its own worker, so no notifications.
 * <p>
 * A claim is two statements: the read of the due work, then an {@code UPDATE} of the rows it found, read back through
 * {@code FINAL TABLE}, which checks again that each row is due. One {@code UPDATE ... WHERE task_id IN (<the read>)}
 * ran the read again for every row it updated (H2 caches a subquery's result only while its table is unchanged, and
 * each updated row changes it): a claim of 48 rows read the due work 49 times, 13 % of the worker threads' CPU
 * while D woke its sleepers. H2 2.4 accepts {@code FOR UPDATE SKIP LOCKED} in the reads of due work, but then reads
 * every due row before it stops (a claim took over a second with 200,000 executions due, 2 ms without it), so it is
 * left out: the {@code UPDATE} locks the rows it takes, and when another claim took one first, it waits for that
 * claim to commit and checks again that the row is due. Only runtimes in this one process ever wait so, for a few
 * milliseconds.
 */
final class H2JdbcCustomization extends JdbcCustomization {

    private static final Log logger = LogFactory.getLog(H2JdbcCustomization.class);

    private static final String DUE = dueTaskIds("");

    /** Takes the rows {@link #DUE} found that are still due (an array parameter: H2 looks each one up by key). */
    private static final String CLAIM = "SELECT task_id, lease_token FROM FINAL TABLE (UPDATE skail_execution "
            + "SET status = 'RUNNING', lease_owner = ?, lease_token = CAST(RANDOM_UUID() AS VARCHAR), lease_until = ?, "
            + "updated_at = ? WHERE task_id = ANY (?) AND ((status IN ('PENDING', 'WAITING') "
            + "AND next_run_at <= ?) OR (status = 'RUNNING' AND lease_until < ?)))";

    /**
     * The longest JSON document (arguments, a result, an error) H2 keeps in its row, in bytes; a longer one goes to
     * H2's separate storage of large objects. H2's default is 256 bytes, under which an order with a few items does
     * not fit: each such step then also wrote the large-object maps of H2 (measured, a 2 KB argument and result
     * committed and synced: 0.41 ms a step against 0.22 ms in the row; 8 KB: 0.50 against 0.23 ms) and was read back
     * from them. A persistent setting of the database; documents already stored stay where they are.
     */
    static final int MAX_LENGTH_INPLACE_LOB = 64 * 1024;

    /**
     * How long after a chunk of its file was written H2 may write over its space once it holds nothing live, in
     * milliseconds (H2's {@code RETENTION_TIME}; its default, 45 s, is for files nobody forces). Through the store's
     * file system a write over space H2 wrote before first forces whatever is not forced yet (see
     * {@link H2PreallocatedFilePath}), so the chunk that made another dead is on the device before that one's space
     * is reused, whatever the retention. With 45 s, H2 kept the dead chunks of the last 45 s in the file (1.28 GB after
     * B's 23,000 executions, with the compaction's rewrites) and the metadata of them all in memory. A persistent
     * setting of the database: on a file through another URL, H2's default is set back.
     */
    static final int RETENTION_MILLIS = 1000;

    /** H2's default retention, for a file that is not written through the store's file system. */
    static final int H2_DEFAULT_RETENTION_MILLIS = 45_000;

    /** H2's error code for a statement only an administrator may run. */
    private static final int ADMIN_RIGHTS_REQUIRED = 90040;

    /** Syncs the commits of a database file this process owns; {@code null} in memory or through a server. */
    private volatile @Nullable H2GroupSync groupSync;

    /**
     * Free space on the file system of the database file below which, once a write failed for want of space, the
     * disk is still full: the file keeps free space of its own (dead chunks, the zeros ahead of its writes) where a
     * probe's small write fits while an ordinary one does not.
     */
    static final long ROOM_BYTES = 256 * 1024;

    /** The directory of a database file this process owns, once started; {@code null} otherwise. */
    private volatile java.nio.file.@Nullable Path directory;

    /** The database file this process owns, as H2 named it when it opened the file, once started. */
    private volatile @Nullable String databaseFile;

    /** Compacts a database file this process owns, once it has started. */
    private volatile @Nullable H2Housekeeping housekeeping;

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
    boolean ownedByThisProcess() {
        return this.groupSync != null;
    }

    @Override
    long @Nullable [] syncs() {
        H2GroupSync sync = this.groupSync;
        if (sync == null) {
            return null;
        }
        String file = this.databaseFile;
        long barrierForces = (file != null) ? H2PreallocatedFilePath.barrierForces(file) : 0;
        return new long[] { sync.commits(), sync.syncs(), barrierForces };
    }

    @Override
    List<Lease> claimDue(Connection connection, Claim claim) throws SQLException {
        List<String> due = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(DUE)) {
            bindDue(ps, 1, claim);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    due.add(rs.getString(1));
                }
            }
        }
        if (due.isEmpty()) {
            return List.of();
        }
        List<Lease> taken;
        try (PreparedStatement ps = connection.prepareStatement(CLAIM)) {
            ps.setString(1, claim.owner());
            ps.setLong(2, claim.leaseUntil());
            ps.setLong(3, claim.now());
            ps.setArray(4, connection.createArrayOf("VARCHAR", due.toArray()));
            ps.setLong(5, claim.now());
            ps.setLong(6, claim.now());
            taken = leases(ps, claim.owner());
        }
        // in the read's order (its turns between the kinds), not the order in which the UPDATE met the rows
        Map<String, Integer> rank = new HashMap<>();
        for (int i = 0; i < due.size(); i++) {
            rank.put(due.get(i), i);
        }
        taken.sort(Comparator.comparing((Lease lease) -> rank.getOrDefault(lease.taskId(), Integer.MAX_VALUE)));
        return taken;
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
                    boolean barrier = connection.getMetaData().getURL().toLowerCase(Locale.ROOT)
                        .startsWith(H2Urls.PREALLOCATED_FILE);
                    statement.execute("SET RETENTION_TIME "
                            + (barrier ? RETENTION_MILLIS : H2_DEFAULT_RETENTION_MILLIS));
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
            String path = databasePath(connection);
            this.directory = directoryOf(path);
            this.databaseFile = (path != null) ? path + org.h2.engine.Constants.SUFFIX_MV_FILE : null;
            H2GroupSync sync = new H2GroupSync();
            this.groupSync = sync;
            H2Housekeeping compaction = new H2Housekeeping(dataSource, sync);
            this.housekeeping = compaction;
            compaction.start();
            try (Statement statement = connection.createStatement()) {
                int expired = statement.executeUpdate("UPDATE skail_execution SET lease_until = 0 "
                        + "WHERE status = 'RUNNING'");
                if (expired > 0) {
                    logger.info("skail store: " + expired + " execution(s) left running by a process that ended "
                            + "are taken back now");
                }
            }
        }
    }

    @Override
    boolean hasRoom() {
        java.nio.file.Path where = this.directory;
        if (where == null) {
            return true;
        }
        try {
            return java.nio.file.Files.getFileStore(where).getUsableSpace() >= ROOM_BYTES;
        }
        catch (java.io.IOException | RuntimeException ex) {
            return true;
        }
    }

    /**
     * The database's path as H2 names it ({@code SELECT DATABASE_PATH()}: {@code skail:/dir/skail} through the
     * store's file system, {@code /dir/skail} for a plain file), or {@code null} for a database that has none.
     */
    static @Nullable String databasePath(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                java.sql.ResultSet rs = statement.executeQuery("SELECT DATABASE_PATH()")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    /** The directory a database of that path (as {@link #databasePath} gives it) is in, or {@code null}. */
    static java.nio.file.@Nullable Path directoryOf(@Nullable String databasePath) {
        if (databasePath == null) {
            return null;
        }
        try {
            java.nio.file.Path parent = H2PreallocatedFilePath.directoryOf(org.h2.store.fs.FilePath.get(databasePath));
            return (parent != null && java.nio.file.Files.isDirectory(parent)) ? parent : null;
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    /** The compaction of the file, once started on a file this process owns; {@code null} otherwise. */
    @Nullable H2Housekeeping housekeeping() {
        return this.housekeeping;
    }

    @Override
    void close() {
        H2Housekeeping compaction = this.housekeeping;
        if (compaction != null) {
            compaction.close();
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
