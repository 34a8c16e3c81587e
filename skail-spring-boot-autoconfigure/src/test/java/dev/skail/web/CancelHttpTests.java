package dev.skail.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.runtime.TestApplication;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /api/v1/executions/{taskId}/cancel}: 202 with the execution, then CANCELLED; 409 once ended; 404. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class CancelHttpTests {

    private static final JsonMapper json = JsonMapper.shared();

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Test
    void cancelOfAWaitingExecutionAnswers202AndItEndsCancelledThenA409() throws Exception {
        post("/trigger/vendas/v1.0.0/esperarAprovacao/cancel-1", "\"cancel-1\"");
        await("cancel-1", ExecutionStatus.WAITING);

        HttpResponse<String> cancelled = post("/api/v1/executions/cancel-1/cancel", "");

        assertThat(cancelled.statusCode()).isEqualTo(202);
        JsonNode body = json.readTree(cancelled.body());
        assertThat(body.get("taskId").asString()).isEqualTo("cancel-1");
        await("cancel-1", ExecutionStatus.CANCELLED);
        JsonNode execution = json.readTree(get("/api/v1/executions/cancel-1").body());
        assertThat(execution.get("status").asString()).isEqualTo("CANCELLED");
        JsonNode history = json.readTree(get("/api/v1/executions/cancel-1/history").body());
        assertThat(history.get("steps").get(0).get("kind").asString()).isEqualTo("CANCEL");

        assertProblem(post("/api/v1/executions/cancel-1/cancel", ""), 409, "has ended (CANCELLED)");
        assertProblem(post("/api/v1/fire/vendas/v1.0.0/cancel-1/aprovacao", "\"late\""), 409, "has ended");
    }

    @Test
    void cancelOfACompletedExecutionIsA409AndOfAnUnknownOneA404() throws Exception {
        post("/trigger/vendas/v1.0.0/processarPedido/cancel-2", "\"cancel-2\"");
        await("cancel-2", ExecutionStatus.COMPLETED);

        assertProblem(post("/api/v1/executions/cancel-2/cancel", ""), 409, "has ended (COMPLETED)");
        assertProblem(post("/api/v1/executions/nobody/cancel", ""), 404, "Unknown execution 'nobody'");
        assertThat(this.client.find("cancel-2").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
    }

    @Test
    void clientCancelsToo() {
        this.client.trigger("esperarAprovacao", "cancel-3", "cancel-3");
        await("cancel-3", ExecutionStatus.WAITING);

        assertThat(this.client.cancel("cancel-3").taskId()).isEqualTo("cancel-3");

        await("cancel-3", ExecutionStatus.CANCELLED);
    }

    @Test
    void reservedEventNamesAreA400() throws Exception {
        post("/trigger/vendas/v1.0.0/esperarAprovacao/cancel-4", "\"cancel-4\"");

        assertProblem(post("/api/v1/fire/vendas/v1.0.0/cancel-4/skail:cancel", "null"), 400, "reserved");
    }

    private void assertProblem(HttpResponse<String> response, int status, String detail) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                (type) -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = json.readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asString()).contains(detail);
    }

    private void await(String taskId, ExecutionStatus status) {
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                () -> this.client.find(taskId).map((e) -> e.status() == status).orElse(false));
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
