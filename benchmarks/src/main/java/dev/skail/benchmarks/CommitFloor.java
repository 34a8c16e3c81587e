package dev.skail.benchmarks;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;

import dev.skail.platform.jdbc.H2Urls;
import org.jspecify.annotations.Nullable;

/**
 * The floor of one durable commit in the store's database, without skail: one small row inserted and committed, one
 * writer, {@value #COMMITS} times; the median is the least any recorded step can cost there. On H2 the commit is
 * followed by {@code CHECKPOINT SYNC}, as the embedded store syncs a commit when no other waits with it; PostgreSQL
 * syncs its log at each commit itself ({@code synchronous_commit=on}).
 */
final class CommitFloor {

    private static final int COMMITS = 1000;

    private CommitFloor() {
    }

    /**
     * H2, in new database files in {@code directory}: the store's own (the {@code jdbc:h2:skail:} file, kept ahead of
     * H2's writes, each sync an {@code fdatasync}), and beside it a plain {@code jdbc:h2:file:} one.
     */
    static String h2(Path directory) throws SQLException {
        // whatever H2 leaves unwritten at the commit, CHECKPOINT SYNC writes and forces
        java.util.function.Function<String, String> store = (name) -> H2Urls.durable(H2Urls.PREALLOCATED_FILE
                + directory.toAbsolutePath().resolve(name) + ";FILE_LOCK=FS");
        java.util.function.Function<String, String> plain = (name) -> "jdbc:h2:file:"
                + directory.toAbsolutePath().resolve(name) + ";FILE_LOCK=FS;WRITE_DELAY=0";
        // each kind once on a file of its own first, so that neither is measured while the JIT compiles H2's commit
        // (measured first and cold, the store's file looked slower than the plain one: 0.43 against 0.34 ms; warm,
        // 0.26 against 0.43 ms)
        measureIn(store.apply("floor-warm"));
        measureIn(plain.apply("plain-warm"));
        return measureIn(store.apply("floor")) + " (INSERT, commit, CHECKPOINT SYNC; the same with a plain "
                + "jdbc:h2:file: URL: " + measureIn(plain.apply("plain")) + ")";
    }

    private static String measureIn(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
            return measure(connection, "CHECKPOINT SYNC");
        }
    }

    /** PostgreSQL, in a table created for it in the benchmark's database and dropped after. */
    static String postgreSql(String url, @Nullable String username, @Nullable String password) throws SQLException {
        Properties properties = new Properties();
        if (username != null) {
            properties.setProperty("user", username);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        try (Connection connection = DriverManager.getConnection(url, properties)) {
            try {
                return measure(connection, null) + " (INSERT, commit)";
            }
            finally {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("DROP TABLE IF EXISTS commit_floor");
                }
            }
        }
    }

    private static String measure(Connection connection, @Nullable String afterCommit) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE commit_floor (id BIGINT PRIMARY KEY, payload VARCHAR(200))");
        }
        connection.setAutoCommit(false);
        long[] nanos = new long[COMMITS];
        long start = System.nanoTime();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO commit_floor VALUES (?, ?)");
                Statement sync = connection.createStatement()) {
            for (int i = 0; i < COMMITS; i++) {
                long before = System.nanoTime();
                insert.setLong(1, i);
                insert.setString(2, "x".repeat(100));
                insert.executeUpdate();
                connection.commit();
                if (afterCommit != null) {
                    sync.execute(afterCommit);
                    connection.commit();
                }
                nanos[i] = System.nanoTime() - before;
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        connection.setAutoCommit(true);
        Stats stats = Stats.of(nanos);
        return String.format(Locale.ROOT, "one-row commit: median %.3f ms, p99 %.3f ms (%,.0f/s in a row)",
                stats.ms(50), stats.ms(99), COMMITS / seconds);
    }
}
