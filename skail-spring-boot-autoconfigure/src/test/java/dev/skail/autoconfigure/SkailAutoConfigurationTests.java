package dev.skail.autoconfigure;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.skail.SkailClient;
import dev.skail.actuate.MicrometerSkailInstrumentation;
import dev.skail.actuate.SkailEndpoint;
import dev.skail.actuate.SkailHealthIndicator;
import dev.skail.logging.ReplayedLogSuppression;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import dev.skail.http.IdempotencyKeyInterceptor;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.jdbc.SqlDialect;
import dev.skail.runtime.PostgreSqlForTests;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;
import dev.skail.web.SkailApiController;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

class SkailAutoConfigurationTests {

    private static final AutoConfigurations ALL = AutoConfigurations.of(SkailAutoConfiguration.class,
            SkailWebAutoConfiguration.class, SkailHealthContributorAutoConfiguration.class,
            SkailHttpClientAutoConfiguration.class, SkailLoggingAutoConfiguration.class,
            SkailActuatorAutoConfiguration.class);

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(ALL)
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.store.url=jdbc:h2:mem:autoconfig;DB_CLOSE_DELAY=-1");

    private final WebApplicationContextRunner webRunner = new WebApplicationContextRunner().withConfiguration(ALL)
        .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.store.url=jdbc:h2:mem:autoconfig;DB_CLOSE_DELAY=-1");

    @Test
    void defaultsCreateRuntimeWorkerClientAndHealthButNoDataSourceForTheApplication() {
        this.runner.run((context) -> {
            assertThat(context).hasSingleBean(SkailRuntime.class)
                .hasSingleBean(SkailWorker.class)
                .hasSingleBean(SkailClient.class)
                .hasSingleBean(SkailHealthIndicator.class)
                .doesNotHaveBean(DataSource.class);
            assertThat(context.getBean(SkailRuntime.class).settings().workload()).isEqualTo("vendas");
            assertThat(context.getBean(SkailRuntime.class).settings().version()).isEqualTo("v1.0.0");
            assertThat(context.getBean(SkailWorker.class).isRunning()).isTrue();
        });
    }

    @Test
    void concurrencyPropertyConfiguresTheWorker() {
        this.runner.withPropertyValues("skail.worker.concurrency=3")
            .run((context) -> assertThat(context.getBean(SkailWorker.class).concurrency()).isEqualTo(3));
    }

    @Test
    void onTheEmbeddedStoreTheWorkerRunsEightExecutionsPerCoreAtLeast32WithAPoolOfFourConnectionsMore()
            throws SQLException {
        int expected = Math.max(32, 8 * Runtime.getRuntime().availableProcessors());
        String url = "jdbc:h2:mem:concurrency-default;DB_CLOSE_DELAY=-1";
        this.runner.withPropertyValues("skail.store.url=" + url).run((context) -> {
            assertThat(context.getBean(SkailWorker.class).concurrency()).isEqualTo(expected);
            // its claims wait for the group commit's next batch: under a backlog they take half as many again ahead
            assertThat(context.getBean(SkailWorker.class).prefetch()).isEqualTo(expected / 2);
            try (Connection probe = DriverManager.getConnection(url, "", "")) {
                // the pool opens its connections in the background, up to its maximum: H2 counts them as sessions
                Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    try (Statement statement = probe.createStatement();
                            ResultSet sessions = statement
                                .executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS")) {
                        sessions.next();
                        assertThat(sessions.getInt(1) - 1).isEqualTo(expected + 4);
                    }
                });
            }
        });
    }

    @Test
    void aSetConcurrencyAndPoolSizeWinOverTheDefaults() throws SQLException {
        String url = "jdbc:h2:mem:concurrency-set;DB_CLOSE_DELAY=-1";
        this.runner
            .withPropertyValues("skail.store.url=" + url, "skail.worker.concurrency=5", "skail.store.max-pool-size=3")
            .run((context) -> {
                assertThat(context.getBean(SkailWorker.class).concurrency()).isEqualTo(5);
                try (Connection probe = DriverManager.getConnection(url, "", "")) {
                    Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                        try (Statement statement = probe.createStatement();
                                ResultSet sessions = statement
                                    .executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS")) {
                            sessions.next();
                            assertThat(sessions.getInt(1) - 1).isEqualTo(3);
                        }
                    });
                }
            });
    }

    @Test
    void onPostgreSqlTheWorkerRunsEightExecutionsPerCoreAtLeast32OnAPoolOfHalfAsManyConnectionsPlusFour()
            throws SQLException {
        // the steps of executions that write at once share one statement: the threads need fewer connections
        int expected = Math.max(32, 8 * Runtime.getRuntime().availableProcessors());
        String application = "skail-pool-" + UUID.randomUUID().toString().substring(0, 8);
        String schema = "pool_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        String url = PostgreSqlForTests.url();
        String named = url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + application;
        this.runner.withPropertyValues("skail.store.url=" + named, "skail.store.schema=" + schema).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SkailWorker.class).concurrency()).isEqualTo(expected);
            // nothing claimed ahead: another instance may be free to run it at once
            assertThat(context.getBean(SkailWorker.class).prefetch()).isZero();
            try (Connection probe = DriverManager.getConnection(url)) {
                // the pool opens its connections in the background, up to its maximum (the listener's among them)
                Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                    try (PreparedStatement statement = probe
                        .prepareStatement("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?")) {
                        statement.setString(1, application);
                        try (ResultSet connections = statement.executeQuery()) {
                            connections.next();
                            assertThat(connections.getInt(1)).isEqualTo(expected / 2 + 4);
                        }
                    }
                });
            }
        });
        // a concurrency set sizes the default pool the same way; a pool size set wins
        SkailProperties.Store store = new SkailProperties.Store();
        assertThat(store.maxPoolSize(SqlDialect.POSTGRESQL, 5)).isEqualTo(6);
        assertThat(store.maxPoolSize(SqlDialect.H2, 5)).isEqualTo(9);
        store.setMaxPoolSize(3);
        assertThat(store.maxPoolSize(SqlDialect.POSTGRESQL, 40)).isEqualTo(3);
        assertThat(new SkailProperties.Worker().concurrency()).isEqualTo(expected);
        assertThat(new SkailProperties.Worker().prefetch(null)).isZero();
    }

    @Test
    void onPostgreSqlTheStoresConnectionsAreReadCommittedWhateverTheDatabasesDefault() {
        // a database whose sessions start SERIALIZABLE: a claim's second statement would share the claim's snapshot
        String url = PostgreSqlForTests.url();
        String serializable = url + (url.contains("?") ? "&" : "?")
                + "options=-c%20default_transaction_isolation%3Dserializable";
        String schema = "isolation_" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        this.runner.withPropertyValues("skail.store.url=" + serializable, "skail.store.schema=" + schema)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                // a session of that URL alone is SERIALIZABLE...
                try (Connection plain = DriverManager.getConnection(serializable);
                        Statement statement = plain.createStatement();
                        ResultSet rs = statement.executeQuery("SHOW transaction_isolation")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("serializable");
                }
                // ...and the store's pool makes its own READ COMMITTED
                try (Connection connection = dev.skail.platform.jdbc.StoreConnections
                    .of(context.getBean(ExecutionStore.class)); Statement statement = connection.createStatement();
                        ResultSet rs = statement.executeQuery("SHOW transaction_isolation")) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo("read committed");
                }
            });
    }

    @Test
    void aSetPrefetchWinsOverTheDefaultAndANegativeOneFailsTheStartSayingWhy() {
        this.runner.withPropertyValues("skail.worker.concurrency=6", "skail.worker.prefetch=0")
            .run((context) -> assertThat(context.getBean(SkailWorker.class).prefetch()).isZero());
        this.runner.withPropertyValues("skail.worker.prefetch=-1")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("skail.worker.prefetch must be between 0 and 10000, not -1"));
    }

    @Test
    void backoffPropertiesConfigureRedeliveryWaits() {
        this.runner.withPropertyValues("skail.retry.backoff.initial=2s", "skail.retry.backoff.multiplier=3",
                "skail.retry.backoff.max=10s").run((context) -> {
                    var backoff = context.getBean(SkailRuntime.class).settings().backoff();
                    assertThat(backoff.millis(1)).isEqualTo(2000);
                    assertThat(backoff.millis(2)).isEqualTo(6000);
                    assertThat(backoff.millis(3)).isEqualTo(10000);
                });
    }

    @Test
    void defaultBackoffIsOneTwoFourEightSecondsCapped() {
        this.runner.run((context) -> {
            var backoff = context.getBean(SkailRuntime.class).settings().backoff();
            assertThat(new long[] { backoff.millis(1), backoff.millis(2), backoff.millis(3), backoff.millis(4),
                    backoff.millis(30) }).containsExactly(1000, 2000, 4000, 8000, 300000);
        });
    }

    @Test
    void userClientAndStoreMakeTheDefaultsBackOff() {
        SkailClient client = mock(SkailClient.class);
        ExecutionStore store = mock(ExecutionStore.class);
        this.runner.withPropertyValues("skail.worker.enabled=false")
            .withBean("myClient", SkailClient.class, () -> client)
            .withBean("myStore", ExecutionStore.class, () -> store)
            .run((context) -> {
                assertThat(context).hasSingleBean(SkailClient.class).hasSingleBean(ExecutionStore.class);
                assertThat(context.getBean(SkailClient.class)).isSameAs(client);
                assertThat(context.getBean(ExecutionStore.class)).isSameAs(store);
            });
    }

    @Test
    void workerSwitchTurnsTheWorkerOff() {
        this.runner.withPropertyValues("skail.worker.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(SkailWorker.class).hasSingleBean(SkailClient.class);
        });
    }

    @Test
    void healthIndicatorNeedsActuatorHealthAndCanBeSwitchedOff() {
        this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
            .run((context) -> assertThat(context).doesNotHaveBean(SkailHealthIndicator.class));
        this.runner.withPropertyValues("management.health.skail.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(SkailHealthIndicator.class));
    }

    @Test
    void httpApiIsServedInServletAppsUnlessSwitchedOffOrMvcIsMissing() {
        this.webRunner.run((context) -> assertThat(context).hasSingleBean(SkailApiController.class));
        this.webRunner.withPropertyValues("skail.http.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(SkailApiController.class));
        this.webRunner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
            .run((context) -> assertThat(context).doesNotHaveBean(SkailApiController.class));
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(SkailApiController.class));
    }

    @Test
    void idempotencyKeyInterceptorNeedsSpringWebAndCanBeSwitchedOff() {
        this.runner.run((context) -> assertThat(context).hasSingleBean(IdempotencyKeyInterceptor.class));
        this.runner.withPropertyValues("skail.http-client.idempotency-key.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(IdempotencyKeyInterceptor.class));
        this.runner.withClassLoader(new FilteredClassLoader("org.springframework.http.client"))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(IdempotencyKeyInterceptor.class));
    }

    @Test
    void idempotencyKeyHeaderIsConfigurable() {
        this.runner.withPropertyValues("skail.http-client.idempotency-key.header=X-Request-Id").run((context) -> {
            assertThat(context.getBean(IdempotencyKeyInterceptor.class)).hasFieldOrPropertyWithValue("header",
                    "X-Request-Id");
        });
    }

    @Test
    void replayedLogSuppressionNeedsLogbackAndCanBeSwitchedOff() {
        this.runner.run((context) -> assertThat(context).hasSingleBean(ReplayedLogSuppression.class));
        this.runner.withPropertyValues("skail.logging.suppress-replayed-logs=false")
            .run((context) -> assertThat(context).doesNotHaveBean(ReplayedLogSuppression.class));
        this.runner.withClassLoader(new FilteredClassLoader("ch.qos.logback"))
            .run((context) -> assertThat(context).doesNotHaveBean(ReplayedLogSuppression.class));
    }

    @Test
    void metricsNeedAMeterRegistryAndTheEndpointIsThereWhenExposed() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(MicrometerSkailInstrumentation.class)
            .doesNotHaveBean(SkailEndpoint.class));
        this.runner.withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
            .run((context) -> assertThat(context).hasSingleBean(MicrometerSkailInstrumentation.class));
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=skail")
            .run((context) -> assertThat(context).hasSingleBean(SkailEndpoint.class));
        this.runner.withPropertyValues("management.endpoints.web.exposure.include=skail",
                "management.endpoint.skail.access=NONE")
            .run((context) -> assertThat(context).doesNotHaveBean(SkailEndpoint.class));
    }

    @Test
    void missingWorkloadFailsStartUpNamingThePropertyAndTheVariable() {
        new ApplicationContextRunner().withConfiguration(ALL)
            .withPropertyValues("skail.store.url=jdbc:h2:mem:autoconfig;DB_CLOSE_DELAY=-1")
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                    .hasMessageContaining("skail.workload")
                    .hasMessageContaining("SKAIL_WORKLOAD");
            });
    }

    @Test
    void malformedWorkloadFailsStartUp() {
        this.runner.withPropertyValues("skail.workload=vendas").run((context) -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("name:version");
        });
    }

    @Test
    void skailWorkloadEnvironmentVariableBindsTheWorkload() {
        new ApplicationContextRunner().withConfiguration(ALL)
            .withPropertyValues("skail.store.url=jdbc:h2:mem:autoconfig;DB_CLOSE_DELAY=-1")
            .withInitializer((context) -> context.getEnvironment().getPropertySources()
                .addLast(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("SKAIL_WORKLOAD", "estoque:v2.1.0"))))
            .run((context) -> {
                assertThat(context.getBean(SkailRuntime.class).settings().workload()).isEqualTo("estoque");
                assertThat(context.getBean(SkailRuntime.class).settings().version()).isEqualTo("v2.1.0");
            });
    }
}
