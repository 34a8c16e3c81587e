package dev.skail.platform.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import javax.sql.DataSource;

import dev.skail.platform.Lease;

/**
 * What the store does differently on each database it runs on: claiming due work, telling other instances that work
 * is due, and guarding the schema migration. One subclass per database ({@link H2JdbcCustomization},
 * {@link PostgreSqlJdbcCustomization}); everything else in {@link JdbcExecutionStore} is plain SQL both accept.
 */
abstract class JdbcCustomization {

    /** The kinds of due work a claim takes in turns: new or redelivered, woken up, abandoned by a dead runner. */
    private static final int KINDS = 3;

    static JdbcCustomization of(SqlDialect dialect) {
        return switch (dialect) {
            case H2 -> new H2JdbcCustomization();
            case POSTGRESQL -> new PostgreSqlJdbcCustomization();
        };
    }

    /**
     * Claims up to {@code claim.limit()} due executions: sets them RUNNING under a new lease each (a token per row)
     * and returns the leases (PostgreSQL: one statement; H2: the read of the due work, then the update of what it
     * found).
     */
    abstract List<Lease> claimDue(Connection connection, Claim claim) throws SQLException;

    /**
     * Tells the instances serving the workload version that the execution is due now, in the caller's transaction
     * (so that the message goes out only if the write commits). Nothing by default: one process, which wakes its own
     * worker.
     */
    void announceDue(Connection connection, String workload, String version, String taskId) throws SQLException {
    }

    /** Tells the instances serving the execution's workload version that it is due now. */
    void announceDue(Connection connection, String taskId) throws SQLException {
    }

    /** Tells the instances serving the parent of {@code childTaskId}, if it is waiting, that it is due now. */
    void announceParentDue(Connection connection, String childTaskId) throws SQLException {
    }

    /**
     * Calls {@code wakeUp} whenever another instance makes work of this workload version due at once. Nothing by
     * default.
     * @return what stops listening
     */
    AutoCloseable listen(DataSource dataSource, String workload, String version, Runnable wakeUp) {
        return () -> {
        };
    }

    /**
     * Calls {@code ended} with the id of each execution another instance ends, and with {@code null} whenever
     * listening starts (again). Nothing by default.
     * @return what stops listening
     */
    AutoCloseable listenEnded(DataSource dataSource,
            java.util.function.Consumer<@org.jspecify.annotations.Nullable String> ended) {
        return () -> {
        };
    }

    /** Runs the migration, alone among the instances that share the database. */
    <T> T migrating(DataSource dataSource, Migration<T> migration) throws SQLException {
        return migration.run();
    }

    /**
     * Returns once what {@code connection} has just committed would survive a power loss, so that the caller may be
     * told it is recorded. Nothing by default: the database's commit is durable (PostgreSQL with its default
     * {@code synchronous_commit}).
     */
    void committed(Connection connection) throws SQLException {
    }

    /**
     * As {@link #committed}, for a commit that carries the writes of other callers: an interrupt of the waiting
     * thread does not end the wait (it is kept, and seen once the commit is durable).
     */
    void committedUninterruptibly(Connection connection) throws SQLException {
        committed(connection);
    }

    /**
     * How many commits waited to be durable, how many syncs to disk made them so, and how many more forces to disk
     * the file made before its space was written over, or {@code null} when the database makes its commits durable
     * itself.
     */
    long @org.jspecify.annotations.Nullable [] syncs() {
        return null;
    }

    /**
     * Whether only this process, and in it only this store, opens the database (an embedded H2 file, once
     * {@link #started}): then nobody else can claim what this store's runtime runs.
     */
    boolean ownedByThisProcess() {
        return false;
    }

    /** What to do once the schema is there, before this store claims anything. */
    void started(DataSource dataSource) throws SQLException {
    }

    /**
     * Whether the store's disk has room again after a write failed for want of it, as far as this store can tell
     * without writing (an embedded file: its file system's free space); {@code true} when it cannot tell.
     */
    boolean hasRoom() {
        return true;
    }

    /** Stops what {@link #started} began, when the store closes (before its pool does). */
    void close() {
    }

    /**
     * The due work, in turns between the three kinds (so that a backlog of new executions never starves wake-ups and
     * expired leases): one limited, index-ordered read per kind, ranked within its kind, then at most {@code limit}
     * taken rank by rank, the kind that goes first in a rank rotating from one claim to the next. Its parameters
     * are bound by {@link #bindDue}.
     * @param lock what each read ends with (a locking clause, or nothing)
     */
    static String dueTaskIds(String lock) {
        // ORDER BY names the whole index prefix, constant as it is, so that H2 reads the index in order and stops
        // early instead of sorting every due row
        return "SELECT task_id FROM ("
                + dueKind(0, "PENDING", "next_run_at <= ?", "ORDER BY workload, version, status, next_run_at", lock)
                + " UNION ALL "
                + dueKind(1, "WAITING", "next_run_at <= ?", "ORDER BY workload, version, status, next_run_at", lock)
                + " UNION ALL "
                + dueKind(2, "RUNNING", "lease_until < ?", "ORDER BY lease_until", lock)
                + ") due ORDER BY turn, MOD(kind + ?, " + KINDS + ") FETCH FIRST ? ROWS ONLY";
    }

    private static String dueKind(int kind, String status, String due, String order, String lock) {
        String column = due.substring(0, due.indexOf(' '));
        return "SELECT task_id, " + kind + " AS kind, ROW_NUMBER() OVER (ORDER BY due_at) AS turn FROM ("
                + "SELECT task_id, " + column + " AS due_at FROM skail_execution WHERE workload = ? AND version = ? "
                + "AND status = '" + status + "' AND " + due + " AND task_id <> ALL (?) " + order
                + " FETCH FIRST ? ROWS ONLY" + lock + ") " + status.toLowerCase(java.util.Locale.ROOT);
    }

    /** Binds the parameters of {@link #dueTaskIds} from {@code index} on; returns the next index. */
    static int bindDue(PreparedStatement ps, int index, Claim claim) throws SQLException {
        Array exclude = ps.getConnection().createArrayOf("VARCHAR", claim.exclude().toArray());
        for (int kind = 0; kind < KINDS; kind++) {
            ps.setString(index++, claim.workload());
            ps.setString(index++, claim.version());
            ps.setLong(index++, claim.now());
            ps.setArray(index++, exclude);
            ps.setInt(index++, claim.limit());
        }
        ps.setInt(index++, claim.turn() % KINDS);
        ps.setInt(index++, claim.limit());
        return index;
    }

    /** Reads the leases a claim returns: task id and token. */
    static List<Lease> leases(PreparedStatement ps, String owner) throws SQLException {
        List<Lease> leases = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                leases.add(new Lease(rs.getString(1), owner, rs.getString(2)));
            }
        }
        return leases;
    }

    /**
     * One claim.
     * @param workload the workload whose executions are claimed
     * @param version its version
     * @param owner the claiming runtime instance
     * @param limit at most this many
     * @param now the time: what is due by then is claimed
     * @param leaseUntil the end of the new leases
     * @param exclude executions this runner is running already, never claimed
     * @param turn which kind of due work goes first in each rank (any number: taken modulo the kinds)
     */
    record Claim(String workload, String version, String owner, int limit, long now, long leaseUntil,
            Set<String> exclude, int turn) {
    }

    @FunctionalInterface
    interface Migration<T> {

        T run() throws SQLException;
    }
}
