package dev.skail.platform.jdbc;

import java.sql.SQLException;
import java.util.Locale;

/**
 * What differs between the databases the embedded platform runs on. Everything else is plain SQL that H2 and
 * PostgreSQL both accept.
 */
public enum SqlDialect {

    H2("CHARACTER LARGE OBJECT"),

    POSTGRESQL("TEXT");

    private final String textType;

    SqlDialect(String textType) {
        this.textType = textType;
    }

    /** The column type for JSON documents of any size. */
    public String textType() {
        return this.textType;
    }

    /** Whether the exception reports a duplicate key. */
    public boolean isUniqueViolation(SQLException ex) {
        return "23505".equals(ex.getSQLState());
    }

    /** Whether the exception reports a table that does not exist. */
    public boolean isUndefinedTable(SQLException ex) {
        String state = ex.getSQLState();
        // PostgreSQL: 42P01; H2: 42S02 (table not found), 42S04 (not found, and the database has no tables at all)
        return "42P01".equals(state) || "42S02".equals(state) || "42S04".equals(state);
    }

    /** Whether the exception is the database refusing the statement (bad SQL, constraint), not a transport failure. */
    public boolean isStatementError(SQLException ex) {
        String state = ex.getSQLState();
        if (state == null) {
            return false;
        }
        // 08: connection exception, 40: transaction rollback (deadlock, serialization), 57/53/HY: resources
        return !(state.startsWith("08") || state.startsWith("40") || state.startsWith("57") || state.startsWith("53")
                || state.startsWith("HY") || state.equals("90098") || state.equals("90121"));
    }

    /** The dialect of a JDBC URL. */
    public static SqlDialect fromUrl(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:h2:")) {
            return H2;
        }
        if (lower.startsWith("jdbc:postgresql:")) {
            return POSTGRESQL;
        }
        throw new IllegalArgumentException("skail.store.url must be an H2 or PostgreSQL JDBC URL, not '" + url + "'");
    }
}
