package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import org.jspecify.annotations.Nullable;

/**
 * The schedules of the embedded platform's JDBC store (table {@code skail_schedule}), on the data source, retry and
 * database customization of its {@link JdbcExecutionStore} (see {@link JdbcExecutionStore#scheduleStore()}). A tick
 * is started by a compare-and-set of the row's {@code next_tick} and the insert of its execution, in one transaction:
 * of instances racing for a tick, the first to commit moves the next tick, and the others' updates, which wait for
 * its row lock and then find another next tick, change nothing. A retry after a lost commit acknowledgement finds the
 * tick moved too, and creates nothing.
 */
final class JdbcScheduleStore implements ScheduleStore {

    /** Named, not numbered, so that H2 parses it once per connection (see {@link GroupCommit#WORK_SAVEPOINT}). */
    private static final String BEFORE_INSERT = "skail_before_insert";

    private static final String COLUMNS = "workload, name, function_name, version, cron, zone, missed, next_tick, "
            + "last_tick, last_task_id, updated_at";

    private final DataSource dataSource;

    private final StoreRetry retry;

    private final JdbcCustomization customization;

    JdbcScheduleStore(DataSource dataSource, StoreRetry retry, JdbcCustomization customization) {
        this.dataSource = dataSource;
        this.retry = retry;
        this.customization = customization;
    }

    @Override
    public ScheduleRow register(ScheduleRow declared, long now) {
        return this.retry.run("register schedule " + declared.name(), () -> inTransaction((connection) -> {
            ScheduleRow stored = find(connection, declared.workload(), declared.name(), true);
            if (stored == null) {
                if (insertIfAbsent(connection, declared, now)) {
                    return find(connection, declared.workload(), declared.name(), false);
                }
                // another instance registered it in between: its row is the one to compare with
                stored = find(connection, declared.workload(), declared.name(), true);
                if (stored == null) {
                    throw new IllegalStateException("schedule " + declared.name() + " vanished");
                }
            }
            if (stored.sameTicks(declared)) {
                update(connection, "UPDATE skail_schedule SET function_name = ?, version = ?, missed = ?, "
                        + "updated_at = ? WHERE workload = ? AND name = ?", declared.function(), declared.version(),
                        declared.missed(), now, declared.workload(), declared.name());
            }
            else {
                update(connection, "UPDATE skail_schedule SET function_name = ?, version = ?, cron = ?, zone = ?, "
                        + "missed = ?, next_tick = ?, updated_at = ? WHERE workload = ? AND name = ?",
                        declared.function(), declared.version(), declared.cron(), declared.zone(), declared.missed(),
                        declared.nextTick(), now, declared.workload(), declared.name());
            }
            return find(connection, declared.workload(), declared.name(), false);
        }));
    }

    @Override
    public List<ScheduleRow> schedules(String workload) {
        return this.retry.run("read the schedules of " + workload, () -> {
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = connection.prepareStatement("SELECT " + COLUMNS + " FROM skail_schedule "
                            + "WHERE workload = ? ORDER BY name")) {
                ps.setString(1, workload);
                List<ScheduleRow> rows = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(row(rs));
                    }
                }
                return rows;
            }
        });
    }

    @Override
    public boolean fire(ScheduleRow schedule, long tick, @Nullable Long following, ExecutionRow execution, long now) {
        Long expected = schedule.nextTick();
        if (expected == null) {
            return false;
        }
        return this.retry.run("start tick " + execution.taskId(), () -> inTransaction((connection) -> {
            int moved = update(connection, "UPDATE skail_schedule SET next_tick = ?, last_tick = ?, last_task_id = ?, "
                    + "updated_at = ? WHERE workload = ? AND name = ? AND next_tick = ? AND cron = ? AND zone = ?",
                    following, tick, execution.taskId(), now, schedule.workload(), schedule.name(), expected,
                    schedule.cron(), schedule.zone());
            if (moved != 1) {
                return false;
            }
            // an execution with the tick's id may exist already (triggered by hand with that id): it is the tick's
            Savepoint beforeInsert = connection.setSavepoint(BEFORE_INSERT);
            try {
                JdbcExecutionStore.insertExecution(connection, execution);
                this.customization.announceDue(connection, execution.workload(), execution.version(),
                        execution.taskId());
            }
            catch (SQLException ex) {
                if (!"23505".equals(ex.getSQLState())) {
                    throw ex;
                }
                connection.rollback(beforeInsert);
            }
            return true;
        }));
    }

    private static @Nullable ScheduleRow find(Connection connection, String workload, String name, boolean lock)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + COLUMNS + " FROM skail_schedule "
                + "WHERE workload = ? AND name = ?" + (lock ? " FOR UPDATE" : ""))) {
            ps.setString(1, workload);
            ps.setString(2, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? row(rs) : null;
            }
        }
    }

    /** Inserts the declared schedule; {@code false} when another instance inserted it first. */
    private static boolean insertIfAbsent(Connection connection, ScheduleRow declared, long now) throws SQLException {
        Savepoint beforeInsert = connection.setSavepoint(BEFORE_INSERT);
        try {
            update(connection, "INSERT INTO skail_schedule (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    declared.workload(), declared.name(), declared.function(), declared.version(), declared.cron(),
                    declared.zone(), declared.missed(), declared.nextTick(), null, null, now);
            return true;
        }
        catch (SQLException ex) {
            if (!"23505".equals(ex.getSQLState())) {
                throw ex;
            }
            connection.rollback(beforeInsert);
            return false;
        }
    }

    private static ScheduleRow row(ResultSet rs) throws SQLException {
        return new ScheduleRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), nullableLong(rs, 8), nullableLong(rs, 9), rs.getString(10),
                rs.getLong(11));
    }

    private static @Nullable Long nullableLong(ResultSet rs, int column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? null : value;
    }

    private static int update(Connection connection, String sql, @Nullable Object... values) throws SQLException {
        return JdbcExecutionStore.update(connection, sql, values);
    }

    private <T> T inTransaction(JdbcExecutionStore.SqlWork<T> work) throws SQLException {
        return JdbcExecutionStore.inTransaction(this.dataSource, this.customization, work);
    }
}
