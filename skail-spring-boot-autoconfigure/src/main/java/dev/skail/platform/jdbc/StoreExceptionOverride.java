package dev.skail.platform.jdbc;

import java.io.IOException;
import java.sql.SQLException;

import com.zaxxer.hikari.SQLExceptionOverride;

/**
 * Tells the store's pool to drop a connection whose H2 database has been closed under it: after a write fails (a
 * full disk), H2 closes the database, and its sessions keep answering "database closed" while still passing
 * validation. A new connection opens the database again, so the store recovers once the disk has room.
 */
public final class StoreExceptionOverride implements SQLExceptionOverride {

    /** H2's "The database has been closed". */
    static final int DATABASE_IS_CLOSED = 90098;

    /** H2's "Database is closed at shutdown". */
    static final int DATABASE_CALLED_AT_SHUTDOWN = 90121;

    /** H2's "IO Exception". */
    static final int IO_EXCEPTION = 90028;

    /** H2's "IO Exception" with a file name. */
    static final int IO_EXCEPTION_FILE = 90031;

    /** H2's "General error", which carries a failed file write of its MVStore. */
    static final int GENERAL_ERROR = 50000;

    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException ex) {
        return isDatabaseClosed(ex) ? SQLExceptionOverride.Override.MUST_EVICT
                : SQLExceptionOverride.Override.CONTINUE_EVICT;
    }

    /** Whether H2 has closed (or is closing) the database of the session that threw {@code ex}. */
    static boolean isDatabaseClosed(SQLException ex) {
        int code = ex.getErrorCode();
        if (code == DATABASE_IS_CLOSED || code == DATABASE_CALLED_AT_SHUTDOWN || code == IO_EXCEPTION
                || code == IO_EXCEPTION_FILE) {
            return true;
        }
        if (code == GENERAL_ERROR) {
            for (Throwable cause = ex.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
                if (cause instanceof IOException || cause.getClass().getName().equals("org.h2.mvstore.MVStoreException")) {
                    return true;
                }
            }
        }
        return false;
    }
}
