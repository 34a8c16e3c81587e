package dev.skail.platform.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import dev.skail.ExecutionStatus;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.StepRow;
import dev.skail.platform.Tag;
import dev.skail.platform.jdbc.H2Urls;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreRetry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.h2.jdbcx.JdbcDataSource;
import org.jspecify.annotations.Nullable;

/**
 * Moves the history of the embedded store of earlier versions (an H2 SQL database, {@code skail.mv.db}) into the
 * store skail keeps itself ({@link LocalStore#FILE_NAME}) in the same directory, once, when the application starts on
 * a directory that has the first and not the second. Every execution with its lease, steps, attempts, events (their
 * keys, so a repeated firing is still recognised) and tags, and every schedule with its next tick, as they are.
 * <p>
 * The new store is written under another name and renamed when whole (its log first, then its maps: the maps' name
 * is the mark that the migration is done); a migration cut short is started again from the beginning. The H2 file is
 * then renamed {@code skail.mv.db.migrated}, kept for the operator to delete.
 */
public final class H2FileMigration {

    private static final Log logger = LogFactory.getLog(H2FileMigration.class);

    /** The H2 file of the earlier embedded store, in the store's directory. */
    public static final String H2_FILE = "skail" + org.h2.engine.Constants.SUFFIX_MV_FILE;

    private static final String WORK_FILE = "skail-store-migrating" + org.h2.engine.Constants.SUFFIX_MV_FILE;

    /** How many rows one write of the new store takes. */
    private static final int BATCH = 1000;

    private H2FileMigration() {
    }

    /**
     * Migrates the directory's H2 file when it has one and no store of skail's own yet.
     * @return how many executions were migrated; {@code -1} when there was nothing to migrate
     */
    public static int migrateIfNeeded(Path directory) {
        Path h2 = directory.resolve(H2_FILE);
        Path target = directory.resolve(LocalStore.FILE_NAME);
        if (Files.exists(target) || !Files.exists(h2)) {
            return -1;
        }
        Path work = directory.resolve(WORK_FILE);
        try (java.nio.channels.FileChannel lockFile = java.nio.channels.FileChannel.open(
                directory.resolve("skail-store-migrating.lock"), java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE);
                java.nio.channels.FileLock lock = lockFile.tryLock()) {
            if (lock == null) {
                throw new IllegalStateException("skail store: another process is moving the H2 file in " + directory
                        + " into the embedded store; start this one after it");
            }
            if (Files.exists(target) || !Files.exists(h2)) {
                // the other process finished meanwhile
                return -1;
            }
            // a migration cut short: what it wrote, and a log renamed without its maps
            Files.deleteIfExists(work);
            Files.deleteIfExists(RedoLog.next(work));
            Files.deleteIfExists(RedoLog.next(target));
            int migrated;
            LocalStore store = LocalStore.open(work);
            try {
                migrated = copy(directory, store);
                // the copy stored and forced, or no rename: the H2 file stays the store
                store.checkpointOrFail();
            }
            finally {
                store.close();
            }
            Files.move(RedoLog.next(work), RedoLog.next(target), StandardCopyOption.ATOMIC_MOVE);
            Files.move(work, target, StandardCopyOption.ATOMIC_MOVE);
            RedoLog.forceDirectory(target);
            Path kept = directory.resolve(H2_FILE + ".migrated");
            Files.move(h2, kept, StandardCopyOption.REPLACE_EXISTING);
            RedoLog.forceDirectory(kept);
            Files.deleteIfExists(directory.resolve("skail-store-migrating.lock"));
            logger.info("skail store: " + migrated + " execution(s) moved from the H2 file of the earlier embedded "
                    + "store to " + target + "; the H2 file is kept as " + kept + " (delete it once you no longer "
                    + "need it)");
            return migrated;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("skail could not move the embedded store's H2 file " + h2 + " to "
                    + target + ": " + ex.getMessage(), ex);
        }
    }

    /** Copies every row of the H2 database in {@code directory} into {@code store}; returns the executions. */
    private static int copy(Path directory, LocalStore store) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(H2Urls.durable(H2Urls.PREALLOCATED_FILE + directory.toAbsolutePath().resolve("skail")
                + ";FILE_LOCK=FS"));
        // the schema brought to this runtime's version first: the columns read below are there
        try (JdbcExecutionStore h2 = new JdbcExecutionStore(dataSource, SqlDialect.H2,
                new StoreRetry(SqlDialect.H2, 3, Duration.ofMillis(100), Duration.ofSeconds(1)), null)) {
            h2.initialize();
            try (Connection connection = dataSource.getConnection()) {
                int executions = copyRows(connection, store);
                try (java.sql.Statement statement = connection.createStatement()) {
                    // the database closed now, whatever else of the JDBC store still holds a session: its file is
                    // renamed next
                    statement.execute("SHUTDOWN");
                }
                return executions;
            }
        }
        catch (SQLException ex) {
            throw new IllegalStateException("skail could not read the embedded store's H2 file in " + directory
                    + " to move it: " + ex.getMessage(), ex);
        }
        catch (Exception ex) {
            if (ex instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(ex);
        }
    }

    /** Copies every row of the H2 database into {@code store}; returns the executions. */
    private static int copyRows(Connection connection, LocalStore store) throws SQLException {
        int executions = rows(connection, "SELECT task_id, workload, version, function_name, arguments, status, "
                + "result, error, attempt, retries_used, next_run_at, created_at, updated_at, parent_task_id, "
                + "lease_owner, lease_token, lease_until FROM skail_execution", (rs) -> new Rows.Execution(
                        new ExecutionRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                                rs.getString(5), ExecutionStatus.valueOf(rs.getString(6)), rs.getString(7),
                                rs.getString(8), rs.getInt(9), rs.getInt(10), nullableLong(rs, 11),
                                rs.getLong(12), rs.getLong(13), rs.getString(14)),
                        rs.getString(15), rs.getString(16), nullableLong(rs, 17)),
                store::importExecutions);
        rows(connection, "SELECT task_id, position, kind, name, arguments, status, result, error, "
                + "idempotency_key, function_attempt, started_at, completed_at, child_task_id FROM skail_step",
                (rs) -> new StepRow(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9),
                        rs.getInt(10), rs.getLong(11), rs.getLong(12), rs.getString(13)),
                store::importSteps);
        rows(connection, "SELECT task_id, position, name, function_attempt, number, started_at, ended_at, "
                + "outcome, error, decision, backoff_ms FROM skail_attempt",
                (rs) -> new AttemptRow(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getInt(4),
                        rs.getInt(5), rs.getLong(6), rs.getLong(7), rs.getString(8), rs.getString(9),
                        rs.getString(10), nullableLong(rs, 11)),
                store::importAttempts);
        rows(connection, "SELECT id, task_id, name, payload, fired_at, consumed_position, event_key "
                + "FROM skail_event", (rs) -> {
                    int position = rs.getInt(6);
                    Integer consumed = rs.wasNull() ? null : position;
                    return new Rows.Event(new EventRow(rs.getLong(1), rs.getString(2), rs.getString(3),
                            rs.getString(4), rs.getLong(5), consumed), rs.getString(7));
                }, store::importEvents);
        rows(connection, "SELECT task_id, tag_key, tag_value FROM skail_tag",
                (rs) -> Map.entry(rs.getString(1), new Tag(rs.getString(2), rs.getString(3))),
                store::importTags);
        rows(connection, "SELECT workload, name, function_name, version, cron, zone, missed, next_tick, "
                + "last_tick, last_task_id, updated_at FROM skail_schedule",
                (rs) -> new ScheduleRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getString(6), rs.getString(7), nullableLong(rs, 8),
                        nullableLong(rs, 9), rs.getString(10), rs.getLong(11)),
                store::importSchedules);
        return executions;
    }

    @FunctionalInterface
    private interface RowReader<T> {

        T read(ResultSet rs) throws SQLException;
    }

    /** Reads every row of the query and hands them on in batches; returns how many. */
    private static <T> int rows(Connection connection, String sql, RowReader<T> reader, Consumer<List<T>> batch)
            throws SQLException {
        int count = 0;
        List<T> rows = new ArrayList<>(BATCH);
        try (PreparedStatement ps = connection.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                rows.add(reader.read(rs));
                count++;
                if (rows.size() == BATCH) {
                    batch.accept(rows);
                    rows = new ArrayList<>(BATCH);
                }
            }
        }
        if (!rows.isEmpty()) {
            batch.accept(rows);
        }
        return count;
    }

    private static @Nullable Long nullableLong(ResultSet rs, int column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }
}
