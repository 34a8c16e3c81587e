package dev.skail.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.runtime.PostgreSqlForTests;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code skail.store.schema} and {@code skail.store.initialize-schema}: where the tables live, and who creates them. */
class StoreSchemaAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SkailAutoConfiguration.class))
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false");

    @Test
    void schemaPropertyPutsTheTablesInThatSchemaCreatedWhenMissingOnH2() throws SQLException {
        String url = "jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        this.runner.withPropertyValues("skail.store.url=" + url, "skail.store.schema=billing").run((context) -> {
            assertThat(context).hasNotFailed();
            ExecutionStore store = context.getBean(ExecutionStore.class);
            store.create(execution("s-1"));
            assertThat(store.find("s-1")).isPresent();
            assertThat(strings(url, "SELECT task_id FROM \"billing\".skail_execution")).containsExactly("s-1");
            assertThat(strings(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'"))
                .isEmpty();
        });
    }

    @Test
    void schemaPropertyPutsTheTablesInThatSchemaCreatedWhenMissingOnPostgreSql() throws SQLException {
        String schema = "cfg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        this.runner.withPropertyValues("skail.store.url=" + PostgreSqlForTests.url(), "skail.store.schema=" + schema)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                context.getBean(ExecutionStore.class).create(execution("s-1"));
                assertThat(strings(PostgreSqlForTests.url(), "SELECT task_id FROM " + schema + ".skail_execution"))
                    .containsExactly("s-1");
            });
    }

    @Test
    void storeThatMayNotCreateTablesFailsStartUpNamingTheDdlAndCreatesNothing() throws SQLException {
        String url = "jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        this.runner.withPropertyValues("skail.store.url=" + url, "skail.store.initialize-schema=false")
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(reason(context.getStartupFailure()))
                    .hasMessageContaining("skail.store.initialize-schema is false and the skail tables are missing")
                    .hasMessageContaining("docs/operations.md");
            });
        assertThat(strings(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'"))
            .isEmpty();
    }

    @Test
    void storeThatMayNotCreateTablesStartsOnTablesThatAreThere() throws SQLException {
        String url = "jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        this.runner.withPropertyValues("skail.store.url=" + url, "skail.store.schema=billing")
            .run((context) -> assertThat(context).hasNotFailed());
        this.runner
            .withPropertyValues("skail.store.url=" + url, "skail.store.schema=billing",
                    "skail.store.initialize-schema=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                context.getBean(ExecutionStore.class).create(execution("s-2"));
                assertThat(context.getBean(ExecutionStore.class).find("s-2")).isPresent();
            });
    }

    @Test
    void schemaThatIsNotAPlainLowerCaseNameFailsStartUpNamingTheProperty() {
        this.runner.withPropertyValues("skail.store.url=jdbc:h2:mem:schema-bad;DB_CLOSE_DELAY=-1",
                "skail.store.schema=Billing; DROP").run((context) -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause()
                        .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                        .hasMessageContaining("skail.store.schema")
                        .hasMessageContaining("lower-case letters, digits and underscores");
                });
    }

    /** The failure skail reports, under the bean creation exceptions that carry it. */
    private static Throwable reason(Throwable failure) {
        Throwable reason = failure;
        while (!(reason instanceof IllegalStateException) && reason.getCause() != null) {
            reason = reason.getCause();
        }
        return reason;
    }

    private static List<String> strings(String url, String query) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(url);
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
}
