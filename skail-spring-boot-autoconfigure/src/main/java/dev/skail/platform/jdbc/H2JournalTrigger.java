package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * Captures the rows a transaction writes to a table of the embedded store, for {@link H2Journal}: after each row
 * inserted or updated its whole new image, after each row deleted its key. Installed on every table of the store by
 * {@link H2JdbcCustomization}; does nothing when the database has no journal open in this process (while the journal
 * is replayed, or when the store runs without one).
 * <p>
 * H2 runs a statement of an embedded database on the caller's thread, so the images go to the calling thread's
 * buffer, appended to the journal when its transaction commits. A statement that commits on its own (auto-commit) is
 * appended at once as a record of its own.
 */
public final class H2JournalTrigger implements Trigger {

    private @Nullable String databasePath;

    private String table = "";

    private String[] columns = new String[0];

    private String[] keys = new String[0];

    @Override
    public void init(Connection connection, String schemaName, String triggerName, String tableName, boolean before,
            int type) throws SQLException {
        this.databasePath = H2Journal.databasePath(connection);
        this.table = tableName;
        DatabaseMetaData metaData = connection.getMetaData();
        Map<Integer, String> byPosition = new TreeMap<>();
        try (ResultSet rs = metaData.getColumns(null, schemaName, tableName, null)) {
            while (rs.next()) {
                byPosition.put(rs.getInt("ORDINAL_POSITION"), rs.getString("COLUMN_NAME"));
            }
        }
        this.columns = byPosition.values().toArray(new String[0]);
        Map<Integer, String> keyBySequence = new TreeMap<>();
        try (ResultSet rs = metaData.getPrimaryKeys(null, schemaName, tableName)) {
            while (rs.next()) {
                keyBySequence.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
            }
        }
        List<String> keyColumns = new ArrayList<>(keyBySequence.values());
        if (keyColumns.isEmpty()) {
            throw new SQLException("skail's journal needs a primary key on " + tableName);
        }
        this.keys = keyColumns.toArray(new String[0]);
        H2Journal journal = H2Journal.of(this.databasePath);
        if (journal != null) {
            journal.triggerLoaded();
        }
    }

    @Override
    public void fire(Connection connection, Object @Nullable [] oldRow, Object @Nullable [] newRow)
            throws SQLException {
        String path = this.databasePath;
        H2Journal journal = (path != null) ? H2Journal.of(path) : null;
        if (journal == null) {
            return;
        }
        H2Journal.Images images = journal.images();
        if (newRow != null) {
            images.add(H2Journal.UPSERT, this.table, this.columns, newRow, this.keys);
        }
        else if (oldRow != null) {
            images.add(H2Journal.DELETE, this.table, this.columns, oldRow, this.keys);
        }
        if (connection.getAutoCommit()) {
            // no transaction of the store's around it: the statement is a record of its own
            journal.append(images.take());
        }
    }
}
