package dev.skail.results;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailHandle;
import dev.skail.runtime.PostgreSqlForTests;
import dev.skail.runtime.SkailRuntime;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances on one PostgreSQL schema: a caller on the instance whose worker is disabled gets the result as soon
 * as the other instance ends the execution, through the notification of ended executions (its safety-net recheck
 * is an hour away).
 */
class ResultsAcrossInstancesOnPostgreSqlTests {

    private static final String SCHEMA = "results_" + UUID.randomUUID().toString().replace("-", "");

    @Test
    void aHandleOnAnInstanceWithoutWorkerCompletesWhenTheOtherInstanceEndsTheExecution() throws Exception {
        String url = url();
        try (ConfigurableApplicationContext worker = start(url, true);
                ConfigurableApplicationContext caller = start(url, false)) {
            caller.getBean(SkailRuntime.class).setResultRecheckInterval(Duration.ofHours(1));
            SkailClient callerClient = caller.getBean(SkailClient.class);

            SkailHandle<String> handle = callerClient.trigger("esperarAprovacao", "across-1", "pedido-5");
            CompletableFuture<String> result = handle.resultAsync();
            CompletableFuture<Long> heardAt = result.thenApply((value) -> System.currentTimeMillis());
            SkailClient workerClient = worker.getBean(SkailClient.class);
            await().atMost(Duration.ofSeconds(20))
                .until(() -> workerClient.find("across-1").map(SkailExecution::status).orElse(null),
                        ExecutionStatus.WAITING::equals);
            assertThat(result).isNotDone();

            workerClient.fire("across-1", "aprovado", "caio");

            assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("pedido-5 aprovado por caio");
            SkailExecution ended = workerClient.find("across-1").orElseThrow();
            assertThat(ended.status()).isEqualTo(ExecutionStatus.COMPLETED);
            assertThat(heardAt.get() - ended.updatedAt().toEpochMilli()).isLessThan(1_000);
        }
    }

    @Test
    void aWaitForAnExecutionThisInstanceCreatedThatTheOtherEndedBeforeTheWaitStartedIsAnsweredAtOnce()
            throws Exception {
        String url = url();
        try (ConfigurableApplicationContext worker = start(url, true);
                ConfigurableApplicationContext caller = start(url, false)) {
            caller.getBean(SkailRuntime.class).setResultRecheckInterval(Duration.ofHours(1));
            SkailClient callerClient = caller.getBean(SkailClient.class);
            SkailClient workerClient = worker.getBean(SkailClient.class);
            // a first wait, answered through the notification of ended executions: the caller listens for them
            CompletableFuture<String> first = callerClient
                .<String>trigger("esperarAprovacao", "created-1", "pedido-7")
                .resultAsync();
            await().atMost(Duration.ofSeconds(20))
                .until(() -> workerClient.find("created-1").map(SkailExecution::status).orElse(null),
                        ExecutionStatus.WAITING::equals);
            workerClient.fire("created-1", "aprovado", "caio");
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("pedido-7 aprovado por caio");

            // created here while listening: a wait for it reads nothing as it starts. The other instance ends it
            // before anyone here waits: the end heard makes the wait read, and it is answered at once
            SkailHandle<ResultsApp.Recibo> handle = callerClient.trigger("pagar", "created-2", "pedido-8",
                    new java.math.BigDecimal("150.00"));
            await().atMost(Duration.ofSeconds(20))
                .until(() -> workerClient.find("created-2").map(SkailExecution::status).orElse(null),
                        ExecutionStatus.COMPLETED::equals);
            assertThat(handle.resultAsync().get(10, TimeUnit.SECONDS))
                .isEqualTo(new ResultsApp.Recibo("pedido-8", new java.math.BigDecimal("150.50")));

            // and one ended after the wait started is answered by the end's notification
            SkailHandle<ResultsApp.Recibo> later = callerClient.trigger("pagar", "created-3", "pedido-9",
                    new java.math.BigDecimal("20.10"));
            assertThat(later.resultAsync().get(10, TimeUnit.SECONDS))
                .isEqualTo(new ResultsApp.Recibo("pedido-9", new java.math.BigDecimal("20.60")));
        }
    }

    private static String url() throws java.sql.SQLException {
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
        }
        return PostgreSqlForTests.url() + (PostgreSqlForTests.url().contains("?") ? "&" : "?") + "currentSchema="
                + SCHEMA;
    }

    private static ConfigurableApplicationContext start(String url, boolean worker) {
        return new SpringApplicationBuilder(ResultsApp.class).web(WebApplicationType.NONE)
            .properties("skail.workload=vendas:v1.0.0", "skail.store.url=" + url,
                    "skail.worker.enabled=" + worker, "skail.worker.poll-interval=200ms",
                    "skail.retry.backoff.initial=0ms", "skail.retry.backoff.max=0ms",
                    "spring.application.name=results-" + (worker ? "worker" : "caller"))
            .run();
    }
}
