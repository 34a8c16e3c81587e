package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

import org.h2.api.Trigger;
import org.h2.engine.Session;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.jspecify.annotations.Nullable;

/**
 * The H2 trigger that hands every row the store's transactions insert, update or delete to the database's
 * {@link H2RedoLog}, in the statement's own thread, before the transaction commits. Created by H2 (hence public,
 * with a public constructor) for each of the store's tables; does nothing while the database has no active log
 * (in memory, through a server, during a replay).
 */
public final class H2RowCapture implements Trigger {

    private String schema = "";

    private String table = "";

    /** The positions of the table's key columns in its rows, read once. */
    private volatile int @Nullable [] key;

    /** Created by H2. */
    public H2RowCapture() {
    }

    @Override
    public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
            int type) {
        this.schema = schemaName;
        this.table = tableName;
    }

    @Override
    public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
            throws SQLException {
        SessionLocal session = session(connection);
        if (session == null) {
            return;
        }
        H2RedoLog log = H2RedoLog.of(session.getDatabase());
        if (log == null) {
            return;
        }
        if (oldRow != null && newRow != null && !sameKey(connection, oldRow, newRow)) {
            // an update of the key: the row under the old key is gone
            log.captured(session, this.table, oldRow, null);
        }
        log.captured(session, this.table, oldRow, newRow);
    }

    private boolean sameKey(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
        int[] key = this.key;
        if (key == null) {
            key = keyOf(connection);
            this.key = key;
        }
        for (int position : key) {
            if (!java.util.Objects.equals(oldRow[position], newRow[position])) {
                return false;
            }
        }
        return true;
    }

    private int[] keyOf(Connection connection) throws SQLException {
        java.util.Map<String, Integer> positions = new java.util.HashMap<>();
        try (java.sql.ResultSet rs = connection.getMetaData().getColumns(null, this.schema, this.table, null)) {
            while (rs.next()) {
                positions.put(rs.getString("COLUMN_NAME"), rs.getInt("ORDINAL_POSITION") - 1);
            }
        }
        java.util.TreeMap<Integer, Integer> key = new java.util.TreeMap<>();
        try (java.sql.ResultSet rs = connection.getMetaData().getPrimaryKeys(null, this.schema, this.table)) {
            while (rs.next()) {
                key.put(rs.getInt("KEY_SEQ"), positions.get(rs.getString("COLUMN_NAME")));
            }
        }
        if (key.isEmpty()) {
            throw new SQLException("The store's log needs a primary key on " + this.table);
        }
        return key.values().stream().mapToInt(Integer::intValue).toArray();
    }

    /** The H2 session of a connection of an embedded database, or {@code null}. */
    static @Nullable SessionLocal session(Connection connection) throws SQLException {
        JdbcConnection h2 = (connection instanceof JdbcConnection direct) ? direct
                : connection.unwrap(JdbcConnection.class);
        Session session = h2.getSession();
        return (session instanceof SessionLocal local) ? local : null;
    }
}
