package dev.skail.availability;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailClient;
import dev.skail.SkailHistory;
import dev.skail.SkailStep;
import dev.skail.SkailUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Issue 10, items 3 and 4, on a real PostgreSQL that the tests stop and start again (a cluster of their own, see
 * {@link OutagePostgres}): the application stays up while its store is away, says so, refuses requests at once with
 * 503, and finishes every execution when the store is back, with no attempt counted for the outage.
 */
class StoreOutageTests {

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private String url;

    @BeforeEach
    void startPostgres() {
        this.url = OutagePostgres.newSchema(OutagePostgres.start());
    }

    @AfterEach
    void closeApplications() {
        this.contexts.forEach(ConfigurableApplicationContext::close);
        OutagePostgres.start();
    }

    @Test
    void anOutageUnderLoadIsReportedAtOnceRefusedWith503AndCostsNoAttempt() {
        ConfigurableApplicationContext app = start("skail.store.url=" + this.url);
        SkailClient client = app.getBean(SkailClient.class);
        OutageFlows flows = app.getBean(OutageFlows.class);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = "before-" + i;
            assertThat(OutageApp.post(app, "/trigger/vendas/v1.0.0/pedido/" + id, "[\"" + id + "\"]").statusCode())
                .isEqualTo(202);
            ids.add(id);
        }
        client.trigger("aprovacao", "aprovacao-1", "aprovacao-1");
        assertThat(OutageApp.health(app).status()).isEqualTo("UP");

        OutagePostgres.stop();
        long stoppedAt = System.nanoTime();

        // health: DOWN with the reason, each answer within a second
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            OutageApp.Health health = OutageApp.health(app);
            assertThat(health.millis()).isLessThan(1000);
            assertThat(health.httpStatus()).isEqualTo(503);
            assertThat(health.status()).isEqualTo("DOWN");
            assertThat(health.error()).contains("skail store could not");
        });

        // a trigger, a fire and a resume: 503 problem+json with Retry-After within skail.store.request-timeout (2 s)
        long start = System.nanoTime();
        HttpResponse<String> trigger = OutageApp.post(app, "/trigger/vendas/v1.0.0/pedido/during-1", "[\"during-1\"]");
        long triggerMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(trigger.statusCode()).isEqualTo(503);
        assertThat(trigger.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(trigger.headers().firstValue("Retry-After")).hasValue("2");
        JsonNode problem = OutageApp.json(trigger);
        assertThat(problem.path("status").asInt()).isEqualTo(503);
        assertThat(problem.path("title").asString()).isEqualTo("Store unavailable");
        assertThat(problem.path("detail").asString()).contains("create execution during-1");
        assertThat(triggerMillis).isLessThan(3000);
        HttpResponse<String> fire = OutageApp.post(app, "/api/v1/fire/vendas/v1.0.0/aprovacao-1/aprovado", "\"sim\"");
        assertThat(fire.statusCode()).isEqualTo(503);
        assertThat(fire.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(OutageApp.post(app, "/api/v1/executions/before-0/resume", "").statusCode()).isEqualTo(503);
        start = System.nanoTime();
        assertThatExceptionOfType(SkailUnavailableException.class)
            .isThrownBy(() -> client.trigger("pedido", "during-2", "during-2"))
            .satisfies((ex) -> assertThat(ex.retryAfter()).isEqualTo(Duration.ofSeconds(2)));
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(3000);

        // a few seconds of outage, then the store is back
        await().until(() -> System.nanoTime() - stoppedAt > 3_000_000_000L);
        OutagePostgres.start();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            OutageApp.Health health = OutageApp.health(app);
            assertThat(health.status()).isEqualTo("UP");
            assertThat(health.millis()).isLessThan(1000);
        });
        assertThat(OutageApp.post(app, "/api/v1/fire/vendas/v1.0.0/aprovacao-1/aprovado", "\"sim\"").statusCode())
            .isEqualTo(202);

        // every execution accepted before the outage completes; those refused during it were not created
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            for (String id : ids) {
                assertThat(client.find(id).orElseThrow().status()).as(id).isEqualTo(ExecutionStatus.COMPLETED);
            }
            assertThat(client.find("aprovacao-1").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
        });
        assertThat(OutageApp.get(app, "/api/v1/executions/during-1").statusCode()).isEqualTo(404);
        assertThat(client.find("during-2")).isEmpty();
        for (String id : ids) {
            SkailHistory history = client.history(id);
            assertThat(history.execution().result()).isEqualTo("\"confirmado-reserva-" + id + "\"");
            assertThat(history.execution().attempt()).as("function attempt of " + id).isEqualTo(1);
            assertThat(history.functionAttempts()).as("function failures of " + id).isEmpty();
            for (SkailStep step : history.steps()) {
                if (step.kind().equals("COMMAND")) {
                    assertThat(step.attempts()).as(id + " " + step.name()).extracting(SkailAttempt::number)
                        .containsExactly(1);
                }
            }
            assertThat(flows.runs.get(id)).as("runs of " + id).isNotNull();
        }
        assertThat(client.history("aprovacao-1").execution().result()).isEqualTo("\"confirmado-aprovacao-1:sim\"");
    }

    @Test
    void anApplicationStartsWithoutItsStoreAndBeginsWorkWhenItAnswers() {
        // an execution waits in the store, then the store goes away and the application starts
        ConfigurableApplicationContext triggering = start("skail.store.url=" + this.url, "skail.worker.enabled=false");
        triggering.getBean(SkailClient.class).trigger("pedido", "waiting-1", "waiting-1");
        triggering.close();
        String secondSchema = OutagePostgres.newSchema(OutagePostgres.start());
        OutagePostgres.stop();

        long start = System.nanoTime();
        ConfigurableApplicationContext app = start("skail.store.url=" + this.url);
        long startMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(startMillis).isLessThan(10_000);

        OutageApp.Health health = OutageApp.health(app);
        assertThat(health.millis()).isLessThan(1000);
        assertThat(health.status()).isEqualTo("DOWN");
        assertThat(health.error()).contains("skail store is not ready").contains("schema is not created yet");
        HttpResponse<String> trigger = OutageApp.post(app, "/trigger/vendas/v1.0.0/pedido/early", "[\"early\"]");
        assertThat(trigger.statusCode()).isEqualTo(503);
        assertThat(trigger.headers().firstValue("Retry-After")).hasValue("2");
        // from the application's own controller, SkailUnavailableException answers 503 with Retry-After too
        HttpResponse<String> own = OutageApp.post(app, "/pedidos/early", "");
        assertThat(own.statusCode()).isEqualTo(503);
        assertThat(own.headers().firstValue("Retry-After")).hasValue("2");

        // an application on a database whose schema was never made starts too
        ConfigurableApplicationContext fresh = start("skail.store.url=" + secondSchema);
        assertThat(OutageApp.health(fresh).error()).contains("schema is not created yet");

        OutagePostgres.start();
        SkailClient client = app.getBean(SkailClient.class);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
            .untilAsserted(() -> assertThat(OutageApp.health(app).status()).isEqualTo("UP"));
        // the worker took the waiting execution by itself
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(
                () -> assertThat(client.find("waiting-1").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED));
        assertThat(client.find("early")).isEmpty();

        // the other created its schema once the database answered, and works
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
            .untilAsserted(() -> assertThat(OutageApp.health(fresh).status()).isEqualTo("UP"));
        assertThat(OutageApp.post(fresh, "/trigger/vendas/v1.0.0/pedido/fresh-1", "[\"fresh-1\"]").statusCode())
            .isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> assertThat(
                fresh.getBean(SkailClient.class).find("fresh-1").orElseThrow().status())
            .isEqualTo(ExecutionStatus.COMPLETED));
    }

    private ConfigurableApplicationContext start(String... properties) {
        ConfigurableApplicationContext context = OutageApp.start(properties);
        this.contexts.add(context);
        return context;
    }
}
