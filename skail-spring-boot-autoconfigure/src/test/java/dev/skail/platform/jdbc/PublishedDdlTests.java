package dev.skail.platform.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The DDL published in {@code docs/operations.md} for databases where the application may not create tables: it is
 * the runtime's own schema, and a store that may not create tables starts on it, or fails naming it.
 */
class PublishedDdlTests {

    private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");

    private static final String MARKER = "<!-- skail-ddl:postgresql";

    private final List<HikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void close() {
        this.pools.forEach(HikariDataSource::close);
    }

    @Test
    void docsPublishTheSchemaTheRuntimeMigratesTo() throws IOException {
        assertThat(publishedDdl()).isEqualTo(SchemaMigrations.script(SqlDialect.POSTGRESQL));
    }

    @Test
    void storeThatMayNotCreateTablesStartsOnTablesMadeWithThePublishedDdl() throws Exception {
        String schema = newSchema();
        execute("SET search_path TO " + schema + ";\n" + publishedDdl());
        JdbcExecutionStore store = store(schema, false);

        store.initialize();
        store.create(execution("ddl-1"));

        assertThat(store.find("ddl-1")).hasValueSatisfying((row) -> assertThat(row.function()).isEqualTo("faturar"));
        // a runtime that may create tables finds nothing to do on them either
        store(schema, true).initialize();
        assertThat(versions(schema)).containsExactlyElementsOf(allVersions());
    }

    @Test
    void storeThatMayNotCreateTablesFailsNamingTheDdlAndCreatesNothing() throws Exception {
        String schema = newSchema();

        assertThatIllegalStateException().isThrownBy(() -> store(schema, false).initialize())
            .withMessageContaining("skail.store.initialize-schema is false and the skail tables are missing from "
                    + "schema '" + schema + "'")
            .withMessageContaining("docs/operations.md")
            .withMessageContaining("search_path set to " + schema);
        assertThat(tables(schema)).isEmpty();
    }

    @Test
    void storeThatMayNotCreateTablesFailsNamingTheMigrationsAnOldSchemaLacks() throws Exception {
        String schema = newSchema();
        execute("SET search_path TO " + schema + ";\n" + SchemaMigrations.VERSION_TABLE);

        assertThatIllegalStateException().isThrownBy(() -> store(schema, false).initialize())
            .withMessageContaining("are at schema version 0, this runtime needs version " + allVersions().size())
            .withMessageContaining("-- skail schema version 1");
        assertThat(tables(schema)).containsExactly("skail_schema");
    }

    @Test
    void storeCreatesItsSchemaWhenItIsMissing() throws Exception {
        String schema = "ddl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);

        store(schema, true).initialize();

        assertThat(tables(schema)).contains("skail_execution", "skail_step", "skail_attempt", "skail_event",
                "skail_schema");
        assertThat(versions(schema)).containsExactlyElementsOf(allVersions());
    }

    private static String publishedDdl() throws IOException {
        String docs = Files.readString(OPERATIONS);
        int marker = docs.indexOf(MARKER);
        assertThat(marker).as("the DDL block of docs/operations.md").isNotNegative();
        int start = docs.indexOf("```sql\n", marker) + "```sql\n".length();
        return docs.substring(start, docs.indexOf("```", start));
    }

    private JdbcExecutionStore store(String schema, boolean initializeSchema) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(PostgreSqlForTests.url());
        pool.setSchema(schema);
        pool.setMaximumPoolSize(2);
        this.pools.add(pool);
        return new JdbcExecutionStore(pool, SqlDialect.POSTGRESQL,
                new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null, schema,
                initializeSchema);
    }

    private static String newSchema() throws SQLException {
        String schema = "ddl_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        execute("CREATE SCHEMA " + schema);
        return schema;
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static List<String> tables(String schema) throws SQLException {
        return strings("SELECT table_name FROM information_schema.tables WHERE table_schema = '" + schema
                + "' ORDER BY table_name");
    }

    private static List<Integer> versions(String schema) throws SQLException {
        return strings("SELECT version FROM " + schema + ".skail_schema").stream().map(Integer::valueOf).toList();
    }

    private static List<String> strings(String query) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(query)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }

    private static ExecutionRow execution(String taskId) {
        return new ExecutionRow(taskId, "vendas", "v1", "faturar", "[]", ExecutionStatus.PENDING, null, null, 1, 0, 0L,
                0, 0, null);
    }

    /** Every schema version the runtime knows, in order: 1, 2, ... */
    private static List<Integer> allVersions() {
        return java.util.stream.IntStream.rangeClosed(1, SchemaMigrations.all(SqlDialect.POSTGRESQL).size()).boxed()
            .toList();
    }
}
