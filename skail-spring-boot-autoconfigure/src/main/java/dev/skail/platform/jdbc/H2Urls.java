package dev.skail.platform.jdbc;

import java.util.Locale;

import org.h2.store.fs.FilePath;

/**
 * Makes an H2 store URL as durable as the default one. H2 writes a committed transaction to its file up to
 * {@code WRITE_DELAY} milliseconds (500 by default) after the commit returns, through a background writer of its own;
 * the store's sync ({@code CHECKPOINT SYNC}, see {@code H2GroupSync}) does not wait for a write that writer has in
 * hand, so an acknowledged step could be lost with the power. {@code WRITE_DELAY=0} writes before the commit returns,
 * and the sync that follows covers it. H2 applies a URL's settings on every new connection, so the URL itself must
 * not ask for a delay. Writing in the background is also how H2 (2.4.240) left its file inconsistent after a
 * {@code kill -9} (2 kills in 32 at its default delay, none at 0; docs/performance.md, session 8).
 */
public final class H2Urls {

    private static final String WRITE_DELAY = "WRITE_DELAY";

    /**
     * The prefix of an embedded H2 file whose syncs force its data alone: {@code jdbc:h2:skail:/path/to/skail} is the
     * H2 file {@code /path/to/skail.mv.db}, extended ahead of H2's writes so that forcing it needs no change of the
     * file system's own records (see {@code H2PreallocatedFilePath}). The default store URL uses it; a
     * {@code jdbc:h2:file:} URL names the same file without it.
     */
    public static final String PREALLOCATED_FILE = "jdbc:h2:" + H2PreallocatedFilePath.SCHEME + ":";

    private H2Urls() {
    }

    /**
     * The URL with {@code ;WRITE_DELAY=0} appended when it names an embedded H2 file database that does not set
     * {@code WRITE_DELAY}. In-memory databases (nothing to lose) and other databases are returned as they are, and so
     * are H2 server URLs ({@code tcp:}, {@code ssl:}) that do not set it: the server owns that setting. A
     * {@link #PREALLOCATED_FILE} URL has its file system made known to H2 here, before anything connects with it.
     * @param url the store's JDBC URL
     * @return the URL to connect with
     * @throws IllegalArgumentException when an H2 URL sets {@code WRITE_DELAY} to anything but 0
     */
    public static String durable(String url) {
        String lower = url.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("jdbc:h2:")) {
            return url;
        }
        String database = lower.substring("jdbc:h2:".length());
        if (database.startsWith(H2PreallocatedFilePath.SCHEME + ":")) {
            // H2 finds a file system by its scheme: it must be known before the first connection
            registerPreallocatedFileSystem();
        }
        if (database.startsWith("mem:") || database.startsWith("memfs:") || database.startsWith("memlzf:")) {
            return url;
        }
        String[] parts = url.split(";");
        for (int i = 1; i < parts.length; i++) {
            int equals = parts[i].indexOf('=');
            String key = (equals >= 0) ? parts[i].substring(0, equals) : parts[i];
            if (key.trim().equalsIgnoreCase(WRITE_DELAY)) {
                String value = (equals >= 0) ? parts[i].substring(equals + 1).trim() : "";
                if (!isZero(value)) {
                    throw new IllegalArgumentException("skail.store.url sets WRITE_DELAY=" + value + ": H2 would "
                            + "acknowledge commits before writing them, so a crash would lose recorded steps (their "
                            + "commands would run again); and a process killed while H2 writes in the background can "
                            + "leave the database file inconsistent (docs/performance.md, session 8). Remove "
                            + "WRITE_DELAY from skail.store.url, or set WRITE_DELAY=0");
                }
                return url;
            }
        }
        if (database.startsWith("tcp:") || database.startsWith("ssl:")) {
            return url;
        }
        return url + (url.endsWith(";") ? "" : ";") + WRITE_DELAY + "=0";
    }

    /**
     * Makes the preallocated file system known to H2, H2's {@code FilePath} initialized first: as it is initialized,
     * {@code FilePath} loads H2's own file systems, some of which extend {@code FilePathWrapper} as this one does. A
     * thread that initialized this file system first (and so {@code FilePathWrapper}, then {@code FilePath}) while
     * another initialized {@code FilePath} (the start-up's background pre-initialization opening H2, or an application
     * thread) would wait for the other's class forever, and so would the application's start.
     */
    private static void registerPreallocatedFileSystem() {
        try {
            Class.forName(FilePath.class.getName(), true, FilePath.class.getClassLoader());
        }
        catch (ClassNotFoundException ex) {
            throw new IllegalStateException(ex);
        }
        H2PreallocatedFilePath.register();
    }

    private static boolean isZero(String value) {
        try {
            return Integer.parseInt(value) == 0;
        }
        catch (NumberFormatException ex) {
            return false;
        }
    }
}
