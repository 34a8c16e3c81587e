package dev.skail.runtime;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.platform.jdbc.StoreRetry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.awaitility.Awaitility.await;

/**
 * An idle instance on PostgreSQL starts work another instance triggered at once, not at its next poll (an hour
 * away here): the other instance's write notifies, this instance's worker listens.
 */
@SpringBootTest(classes = WorkerWakeUpOnPostgreSqlTests.App.class,
        properties = { "skail.workload=vendas:v1.0.0", "skail.worker.poll-interval=1h" })
class WorkerWakeUpOnPostgreSqlTests {

    private static final String SCHEMA = "wakeup_" + UUID.randomUUID().toString().replace("-", "");

    @Autowired
    SkailClient client;

    @DynamicPropertySource
    static void store(DynamicPropertyRegistry registry) throws SQLException {
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
        }
        registry.add("skail.store.url", () -> PostgreSqlForTests.url()
                + (PostgreSqlForTests.url().contains("?") ? "&" : "?") + "currentSchema=" + SCHEMA);
    }

    @Test
    void aTriggerOnAnotherInstanceStartsAtOnceOnAnIdleInstance() throws Exception {
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(PostgreSqlForTests.url());
            pool.setSchema(SCHEMA);
            pool.setMaximumPoolSize(2);
            JdbcExecutionStore other = new JdbcExecutionStore(pool, SqlDialect.POSTGRESQL,
                    new StoreRetry(SqlDialect.POSTGRESQL, 3, Duration.ofMillis(1), Duration.ofMillis(5)), null);
            other.initialize();

            for (String taskId : new String[] { "wake-1", "wake-2" }) {
                long now = System.currentTimeMillis();
                other.create(new ExecutionRow(taskId, "vendas", "v1.0.0", "saudar", "[\"mundo\"]",
                        ExecutionStatus.PENDING, null, null, 1, 0, now, now, now, null));

                // the second one comes when this instance is idle, its poll an hour away
                await().atMost(Duration.ofSeconds(5)).until(() -> this.client.find(taskId)
                    .map(SkailExecution::status)
                    .filter(ExecutionStatus.COMPLETED::equals)
                    .isPresent());
            }
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Greetings.class)
    static class App {

    }

    static class Greetings {

        @SkailFunction
        public String saudar(String nome) {
            return "olá " + nome;
        }
    }
}
