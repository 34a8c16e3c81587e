package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StoredHistory;

/**
 * The store on PostgreSQL, shared by several instances.
 * <ul>
 * <li>A claim is one statement: the due rows of each kind are locked with {@code FOR UPDATE SKIP LOCKED} (instances
 * claiming at once take different rows instead of waiting for each other) and updated, each with a token of its
 * own, and the leases come back with {@code RETURNING}; the worker's claim sends a second statement with it, in the
 * same transaction and round trip, which names the claimed executions that have a history.</li>
 * <li>Writes that make work due at once (a trigger, an event to a waiting execution, a resume, a child's end, a
 * hand-back) send {@code pg_notify} in their transaction, on a channel per schema and workload version; each instance listens
 * on a connection of its own and polls at once ({@link PostgreSqlNotificationListener}).</li>
 * <li>The schema is migrated under an advisory lock, so that instances starting at once on an empty database do not
 * race.</li>
 * </ul>
 */
final class PostgreSqlJdbcCustomization extends JdbcCustomization {

    /** The first key of the advisory lock around migrations ("skai"); the second is the schema's. */
    private static final int MIGRATION_LOCK = 0x736b6169;

    /**
     * The second half of the migration lock's key: the connection's search path, which names the schema the store
     * uses whether it exists yet or not ({@code current_schema()} changes when the migration creates it, and an
     * unlock with another key would leave the lock held by a pooled connection).
     */
    private static final String LOCK_KEY = "SELECT hashtext(current_setting('search_path'))";

    /**
     * The schema the store's tables are in, in SQL, as the connection finds them (null before they exist): the one name
     * both the statements that notify and the connection that listens agree on. {@code current_schema()} would not do:
     * it is null on a connection opened before the store's migration created its schema (a listener that started while
     * the database was down), and a schema created later ahead in the search path ({@code "$user"}) changes it while
     * the tables stay where they are. Looked up when the statement runs ({@code to_regclass}), not when it is planned.
     */
    private static final String STORE_SCHEMA_OR_NULL = "(SELECT relnamespace::regnamespace::text FROM pg_class "
            + "WHERE oid = to_regclass('skail_execution'))";

    /** {@link #STORE_SCHEMA_OR_NULL}, never null: a statement that notifies never fails for its channel's name. */
    private static final String STORE_SCHEMA = "COALESCE(" + STORE_SCHEMA_OR_NULL + ", '')";

    /**
     * The channel of ended executions, in SQL: one per schema, whatever the workload or version (a caller may wait for
     * an execution of a version it does not serve); the payload is the task id. PostgreSQL's channels are the
     * database's: the schema's name in the channel keeps stores in other schemas of the same database from waking each
     * other.
     */
    static final String ENDED_CHANNEL = "'skail_ended_' || md5(" + STORE_SCHEMA + ")";

    /**
     * The claim's update of the due rows ({@code due}, locked): each returned as updated (in the columns
     * {@link JdbcExecutionStore#executionRow} reads), with its new token.
     */
    private static final String CLAIM_UPDATE = "UPDATE skail_execution SET status = 'RUNNING', lease_owner = ?, "
            + "lease_token = md5(random()::text || task_id), lease_until = ?, updated_at = ? "
            + "WHERE task_id IN (SELECT task_id FROM due) RETURNING " + JdbcExecutionStore.EXECUTION_COLUMNS
            + ", lease_token";

    /** The claim: the due rows locked, then {@link #CLAIM_UPDATE}. */
    private static final String CLAIM = "WITH due AS (" + dueTaskIds(" FOR UPDATE SKIP LOCKED") + ") " + CLAIM_UPDATE;

    /** The transaction's setting in which {@link #CLAIM_WITH_HISTORIES} hands its ids to its second statement. */
    private static final String CLAIMED_SETTING = "skail.claimed";

    /** Where the token follows the execution's row in {@link #CLAIM}'s answer. */
    private static final int CLAIM_TOKEN = JdbcExecutionStore.EXECUTION_COLUMN_COUNT + 1;

    /**
     * The claim, then, in the same transaction and round trip, which of the executions it claimed have a step, an
     * attempt or an event: read after the claim's row locks are taken, in a snapshot that sees every commit before
     * them (nobody writes a step or an attempt without the lease, and an event waits for the row's lock), so an
     * execution not named here has no history besides its row. That needs READ COMMITTED, where the second statement
     * takes a snapshot of its own: the store's pool sets it on every connection, whatever the database's default (at
     * REPEATABLE READ both would share the claim's snapshot, and a step written under a lock of the row, not an
     * update, would not fail the claim).
     * <p>
     * The claim hands the ids it took to the second statement in a setting local to the transaction
     * ({@value #CLAIMED_SETTING}, a text array; each row of the claim's answer carries only its length), and the
     * second statement answers for each id it was handed whether it has a history: an id claimed and not answered
     * for is taken for one with a history, which its runner reads. Each {@code EXISTS} is a probe by key per
     * execution ({@code OFFSET 0} keeps the planner from hashing a whole table instead, which it chose while the
     * tables' statistics said they were small). Found again by what the claim wrote into them (owner, lease end,
     * time), the claimed rows were read through an index of {@code skail_execution} that also holds the entries of
     * every version of a row no longer running, not yet vacuumed (D's wake: 2.3–3.3 ms a claim, scanning 20,000 such
     * entries of the status index).
     * <p>
     * A statement before the claim has this transaction plan the claim once per connection and keep that plan
     * ({@code plan_cache_mode}, set locally): PostgreSQL planned it again at almost every call (6,122 plans in 8,920
     * calls in D, 0.57 ms each, more than the claim's own 0.35 ms), the plan its parameters gave looking cheaper than
     * the generic one by the planner's estimates, and it is the same plan: the due index read in order up to the
     * limit.
     */
    private static final String CLAIM_WITH_HISTORIES = "SELECT set_config('plan_cache_mode', 'force_generic_plan', "
            + "true); WITH due AS (" + dueTaskIds(" FOR UPDATE SKIP LOCKED") + "), claimed AS (" + CLAIM_UPDATE
            + ") SELECT claimed.*, (SELECT length(set_config('" + CLAIMED_SETTING
            + "', array_agg(task_id)::text, true)) FROM claimed) FROM claimed; "
            + "SELECT c.id, EXISTS (SELECT 1 FROM skail_step s WHERE s.task_id = c.id OFFSET 0) "
            + "OR EXISTS (SELECT 1 FROM skail_attempt a WHERE a.task_id = c.id OFFSET 0) "
            + "OR EXISTS (SELECT 1 FROM skail_event v WHERE v.task_id = c.id OFFSET 0) "
            + "FROM unnest(COALESCE(NULLIF(current_setting('" + CLAIMED_SETTING
            + "', true), ''), '{}')::text[]) AS c(id)";

    /** A notification on the channel of the execution's own workload version (see {@link #channel(String, String)}). */
    private static final String NOTIFY = "SELECT pg_notify(" + channel("workload", "version")
            + ", task_id) FROM skail_execution WHERE ";

    private static final String NOTIFY_EXECUTION = NOTIFY + "task_id = ?";

    /**
     * An execution's end in one statement (see {@code JdbcExecutionStore.complete}): the update fenced by the lease,
     * the parent's wake-up when it waits and its notification (the end itself is announced after the commit, see
     * {@link PostgreSqlEndAnnouncements}). The first column counts
     * the executions ended: 0 when the lease is lost. The execution's row as ended follows (from column
     * {@link #COMPLETE_ROW}, in the columns {@link JdbcExecutionStore#executionRow} reads, all null when the lease is
     * lost), then its tags' keys and values as two arrays in the order of keys and values.
     */
    static final String COMPLETE = "WITH done AS (UPDATE skail_execution SET status = 'COMPLETED', result = ?, "
            + "next_run_at = NULL, updated_at = ?, lease_owner = NULL, lease_token = NULL, lease_until = NULL "
            + "WHERE task_id = ? AND lease_token = ? AND status = 'RUNNING' RETURNING "
            + JdbcExecutionStore.EXECUTION_COLUMNS + "), "
            + "woken AS (UPDATE skail_execution parent SET next_run_at = CASE WHEN parent.status = 'WAITING' THEN ? "
            + "ELSE parent.next_run_at END FROM done WHERE parent.task_id = done.parent_task_id "
            + "RETURNING parent.task_id, parent.workload, parent.version, parent.status) "
            + "SELECT (SELECT COUNT(*) FROM done), (SELECT COUNT(pg_notify(" + channel("workload", "version")
            + ", task_id)) FROM woken WHERE status = 'WAITING'), "
            + JdbcExecutionStore.executionColumns("d.") + ", "
            + "ARRAY(SELECT t.tag_key FROM skail_tag t WHERE t.task_id = d.task_id ORDER BY t.tag_key, t.tag_value), "
            + "ARRAY(SELECT t.tag_value FROM skail_tag t WHERE t.task_id = d.task_id ORDER BY t.tag_key, t.tag_value) "
            + "FROM (SELECT 1) one LEFT JOIN done d ON TRUE";

    /** Where the ended execution's row starts in {@link #COMPLETE}'s answer. */
    static final int COMPLETE_ROW = 3;

    private static final String NOTIFY_PARENT = NOTIFY + "task_id = "
            + "(SELECT parent_task_id FROM skail_execution WHERE task_id = ?) AND status = 'WAITING'";

    @Override
    List<Lease> claimDue(Connection connection, Claim claim) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(CLAIM)) {
            bindClaim(ps, claim);
            try (ResultSet rs = ps.executeQuery()) {
                List<Lease> leases = new ArrayList<>();
                while (rs.next()) {
                    leases.add(new Lease(rs.getString(1), claim.owner(), rs.getString(CLAIM_TOKEN)));
                }
                return leases;
            }
        }
    }

    /** Binds {@link #CLAIM}'s parameters; returns the next index. */
    private static int bindClaim(PreparedStatement ps, Claim claim) throws SQLException {
        int index = bindDue(ps, 1, claim);
        ps.setString(index++, claim.owner());
        ps.setLong(index++, claim.leaseUntil());
        ps.setLong(index++, claim.now());
        return index;
    }

    /**
     * The claim with the history of each execution that has none besides its row (see
     * {@link JdbcExecutionStore#claimDueWithHistory}): {@link #CLAIM_WITH_HISTORIES}.
     */
    List<ExecutionStore.Claimed> claimDueWithHistory(Connection connection, Claim claim) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(CLAIM_WITH_HISTORIES)) {
            bindClaim(ps, claim);
            ps.execute();
            // the setting's answer, then the claim's
            if (!ps.getMoreResults()) {
                throw new SQLException("a claim answered fewer results than it asked for");
            }
            List<ExecutionRow> rows = new ArrayList<>();
            List<String> tokens = new ArrayList<>();
            try (ResultSet rs = ps.getResultSet()) {
                while (rs.next()) {
                    rows.add(JdbcExecutionStore.executionRow(rs));
                    tokens.add(rs.getString(CLAIM_TOKEN));
                }
            }
            if (!ps.getMoreResults()) {
                throw new SQLException("a claim answered fewer results than it asked for");
            }
            java.util.Map<String, Boolean> withHistory = new java.util.HashMap<>();
            try (ResultSet rs = ps.getResultSet()) {
                while (rs.next()) {
                    withHistory.put(rs.getString(1), rs.getBoolean(2));
                }
            }
            List<ExecutionStore.Claimed> claimed = new ArrayList<>(rows.size());
            for (int i = 0; i < rows.size(); i++) {
                ExecutionRow row = rows.get(i);
                // an id the second statement did not answer for (the ids did not reach it: not in the claim's
                // transaction) is taken for one with a history, which its runner reads
                @Nullable StoredHistory history = !Boolean.FALSE.equals(withHistory.get(row.taskId())) ? null
                        : new StoredHistory(row, List.of(), List.of(), List.of());
                claimed.add(new ExecutionStore.Claimed(new Lease(row.taskId(), claim.owner(), tokens.get(i)), history));
            }
            return claimed;
        }
    }

    @Override
    void announceDue(Connection connection, String workload, String version, String taskId) throws SQLException {
        try (PreparedStatement ps = connection
            .prepareStatement("SELECT pg_notify(" + channel("CAST(? AS text)", "CAST(? AS text)") + ", ?)")) {
            ps.setString(1, workload);
            ps.setString(2, version);
            ps.setString(3, taskId);
            ps.execute();
        }
    }

    @Override
    void announceDue(Connection connection, String taskId) throws SQLException {
        notify(connection, NOTIFY_EXECUTION, taskId);
    }

    @Override
    void announceParentDue(Connection connection, String childTaskId) throws SQLException {
        notify(connection, NOTIFY_PARENT, childTaskId);
    }

    private static void notify(Connection connection, String sql, String taskId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, taskId);
            ps.execute();
        }
    }

    @Override
    AutoCloseable listen(DataSource dataSource, String workload, String version, Runnable wakeUp) {
        return new PostgreSqlNotificationListener(dataSource, (connection) -> channel(connection, workload, version),
                wakeUp);
    }


    @Override
    AutoCloseable listenEnded(DataSource dataSource, java.util.function.Consumer<@Nullable String> ended) {
        return new PostgreSqlNotificationListener(dataSource, (connection) -> name(connection, ENDED_CHANNEL),
                () -> ended.accept(null), ended);
    }

    @Override
    <T> T migrating(DataSource dataSource, Migration<T> migration) throws SQLException {
        // a session lock on a connection of its own: the migration commits several times on another one
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(true);
            int key = lockKey(connection);
            advisory(connection, "SELECT pg_advisory_lock(?, ?)", key);
            T migrated;
            try {
                migrated = migration.run();
            }
            catch (SQLException | RuntimeException | Error ex) {
                unlock(connection, key, ex);
                throw ex;
            }
            unlock(connection, key, null);
            return migrated;
        }
    }

    private static int lockKey(Connection connection) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(LOCK_KEY); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Releases the lock; when that fails, the connection is closed for good, which ends the session and the lock. */
    private static void unlock(Connection connection, int key, @Nullable Throwable failure) throws SQLException {
        boolean released;
        try (PreparedStatement ps = connection.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
            ps.setInt(1, MIGRATION_LOCK);
            ps.setInt(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                released = rs.next() && rs.getBoolean(1);
            }
        }
        catch (SQLException ex) {
            if (failure != null) {
                failure.addSuppressed(ex);
            }
            released = false;
        }
        if (!released) {
            // never give a connection that may still hold the lock back to the pool
            try (PreparedStatement ps = connection.prepareStatement("SELECT pg_advisory_unlock_all()")) {
                ps.execute();
            }
        }
    }

    private static void advisory(Connection connection, String sql, int key) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setInt(1, MIGRATION_LOCK);
            ps.setInt(2, key);
            ps.execute();
        }
    }

    /**
     * The channel of a workload version in the store's schema, in SQL: a name PostgreSQL accepts whatever the
     * names and their length (at most 63 bytes, no quoting). PostgreSQL's channels are the database's: the schema's
     * name in the channel keeps stores in other schemas of the same database (another environment, another
     * application with the same workload's name) from waking each other's workers.
     * @param workload the workload's name, in SQL (a column, or a parameter cast to text)
     * @param version the version, in SQL
     */
    static String channel(String workload, String version) {
        return "'skail_' || md5(" + STORE_SCHEMA + " || ':' || " + workload + " || ':' || " + version + ")";
    }

    /**
     * The channel of a workload version in the store's schema (see {@link #channel(String, String)}).
     * @throws SQLException when the store's tables are not (yet) there: the listener tries again later
     */
    static String channel(Connection connection, String workload, String version) throws SQLException {
        return name(connection, channel("CAST(? AS text)", "CAST(? AS text)"), workload, version);
    }

    /** The name of a channel, given in SQL, on a connection that finds the store's tables. */
    private static String name(Connection connection, String channel, String... parameters) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + STORE_SCHEMA_OR_NULL + ", " + channel)) {
            for (int i = 0; i < parameters.length; i++) {
                ps.setString(i + 1, parameters[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getString(1) == null) {
                    throw new SQLException("skail's tables are not in the search path of the store's connections yet");
                }
                return rs.getString(2);
            }
        }
    }
}
