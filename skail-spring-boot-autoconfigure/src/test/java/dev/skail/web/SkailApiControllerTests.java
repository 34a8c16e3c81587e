package dev.skail.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.stream.Stream;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.runtime.TestApplication;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP API: trigger (S13), read, and a clear problem+json answer that records nothing for bad input. */
@SpringBootTest(classes = TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms", "skail.http.max-body-size=1KB" })
class SkailApiControllerTests {

    private static final JsonMapper json = JsonMapper.shared();

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Test
    void triggerAnswers202WithTheExecutionAndRunsIt() throws Exception {
        HttpResponse<String> response = post("/trigger/vendas/v1.0.0/processarPedido/web-1", "[\"web-1\"]");

        assertThat(response.statusCode()).isEqualTo(202);
        assertThat(response.headers().firstValue("Location")).hasValue("http://localhost:" + this.port
                + "/api/v1/executions/web-1");
        JsonNode body = json.readTree(response.body());
        assertThat(body.get("taskId").asString()).isEqualTo("web-1");
        assertThat(body.get("function").asString()).isEqualTo("processarPedido");
        assertThat(body.get("workload").asString()).isEqualTo("vendas");
        assertThat(body.get("version").asString()).isEqualTo("v1.0.0");
        assertThat(body.get("arguments").toString()).isEqualTo("[\"web-1\"]");
        awaitCompleted("web-1");
        JsonNode execution = json.readTree(get("/api/v1/executions/web-1").body());
        assertThat(execution.get("status").asString()).isEqualTo("COMPLETED");
        assertThat(execution.get("result").asString()).isEqualTo("APPROVED");
    }

    @Test
    void bareJsonValueIsAcceptedForAOneParameterFunction() throws Exception {
        assertThat(post("/trigger/vendas/v1.0.0/processarPedido/web-bare", "\"web-bare\"").statusCode()).isEqualTo(202);

        awaitCompleted("web-bare");
        assertThat(this.client.find("web-bare").orElseThrow().arguments()).isEqualTo("[\"web-bare\"]");
    }

    @Test
    void repeatedTriggerWithTheSameArgumentsReturnsTheExistingExecution() throws Exception {
        HttpResponse<String> first = post("/trigger/vendas/v1.0.0/reservarEmOutroBean/web-repeat", "[\"SKU\", 2]");
        awaitCompleted("web-repeat");

        HttpResponse<String> second = post("/trigger/vendas/v1.0.0/reservarEmOutroBean/web-repeat", "[\"SKU\",2]");

        assertThat(second.statusCode()).isEqualTo(202);
        JsonNode repeated = json.readTree(second.body());
        assertThat(repeated.get("createdAt")).isEqualTo(json.readTree(first.body()).get("createdAt"));
        assertThat(repeated.get("status").asString()).isEqualTo("COMPLETED");
        assertThat(this.client.history("web-repeat").steps()).hasSize(2);
    }

    @Test
    void repeatedTriggerWithOtherArgumentsIsAConflict() throws Exception {
        post("/trigger/vendas/v1.0.0/reservarEmOutroBean/web-conflict", "[\"SKU\", 2]");

        HttpResponse<String> conflict = post("/trigger/vendas/v1.0.0/reservarEmOutroBean/web-conflict", "[\"SKU\", 3]");
        HttpResponse<String> otherFunction = post("/trigger/vendas/v1.0.0/processarPedido/web-conflict", "\"x\"");

        assertProblem(conflict, 409, "already exists");
        assertProblem(otherFunction, 409, "already exists");
        assertThat(this.client.find("web-conflict").orElseThrow().arguments()).isEqualTo("[\"SKU\",2]");
    }

    static Stream<Arguments> badInput() {
        return Stream.of(Arguments.of("malformed JSON", "/trigger/vendas/v1.0.0/processarPedido/bad-1", "[\"x\"", 400,
                "not valid JSON"),
                Arguments.of("too few arguments", "/trigger/vendas/v1.0.0/reservarEmOutroBean/bad-2", "[\"SKU\"]", 400,
                        "takes 2 argument(s), but 1"),
                Arguments.of("too many arguments", "/trigger/vendas/v1.0.0/reservarEmOutroBean/bad-3",
                        "[\"SKU\", 1, 2]", 400, "takes 2 argument(s), but 3"),
                Arguments.of("object for two parameters", "/trigger/vendas/v1.0.0/reservarEmOutroBean/bad-4",
                        "{\"sku\": \"x\"}", 400, "JSON array"),
                Arguments.of("wrong type", "/trigger/vendas/v1.0.0/reservarEmOutroBean/bad-5", "[\"SKU\", \"three\"]",
                        400, "Argument 1"),
                Arguments.of("null for a primitive", "/trigger/vendas/v1.0.0/reservarEmOutroBean/bad-6",
                        "[\"SKU\", null]", 400, "Argument 1 of function 'reservarEmOutroBean' is not a valid int"),
                Arguments.of("unknown workload", "/trigger/compras/v1.0.0/processarPedido/bad-7", "\"x\"", 404,
                        "Unknown workload 'compras'"),
                Arguments.of("unknown version", "/trigger/vendas/v9.9.9/processarPedido/bad-8", "\"x\"", 404,
                        "Unknown version 'v9.9.9'"),
                Arguments.of("unknown function", "/trigger/vendas/v1.0.0/cancelarPedido/bad-9", "\"x\"", 404,
                        "Unknown function 'cancelarPedido'"),
                Arguments.of("invalid id", "/trigger/vendas/v1.0.0/processarPedido/bad%24id", "\"x\"", 400,
                        "Invalid id 'bad$id'"),
                Arguments.of("id too long", "/trigger/vendas/v1.0.0/processarPedido/" + "a".repeat(129), "\"x\"", 400,
                        "Invalid id"),
                Arguments.of("oversized body", "/trigger/vendas/v1.0.0/processarPedido/bad-10",
                        "\"" + "x".repeat(2000) + "\"", 413, "skail.http.max-body-size"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInput")
    void badInputGetsAProblemAndRecordsNothing(String what, String path, String body, int status, String detail)
            throws Exception {
        HttpResponse<String> response = post(path, body);

        assertProblem(response, status, detail);
        String id = path.substring(path.lastIndexOf('/') + 1);
        assertThat(this.client.find(id.replace("%24", "$"))).isEmpty();
    }

    @Test
    void fireDeliversThePayloadToTheWaitingFunction() throws Exception {
        post("/trigger/vendas/v1.0.0/esperarAprovacao/fire-1", "\"fire-1\"");

        HttpResponse<String> fired = post("/api/v1/fire/vendas/v1.0.0/fire-1/aprovacao", "\"maria\"");

        assertThat(fired.statusCode()).isEqualTo(202);
        awaitCompleted("fire-1");
        assertThat(this.client.find("fire-1").orElseThrow().result(String.class)).isEqualTo("approved by maria");
    }

    @Test
    void fireAtAnUnknownExecutionIsA404AndAtAnEndedOneA409() throws Exception {
        assertProblem(post("/api/v1/fire/vendas/v1.0.0/nobody/aprovacao", "\"x\""), 404, "Unknown execution 'nobody'");
        post("/trigger/vendas/v1.0.0/esperarAprovacao/fire-2", "\"fire-2\"");
        assertProblem(post("/api/v1/fire/compras/v1.0.0/fire-2/aprovacao", "\"x\""), 404, "Unknown execution");
        post("/api/v1/fire/vendas/v1.0.0/fire-2/aprovacao", "\"ana\"");
        awaitCompleted("fire-2");

        assertProblem(post("/api/v1/fire/vendas/v1.0.0/fire-2/aprovacao", "\"late\""), 409, "has ended");
        assertProblem(post("/api/v1/fire/vendas/v1.0.0/fire-2/aprovacao", "{bad"), 400, "not valid JSON");
    }

    @Test
    void postsThatACrossSiteFormCouldSendAreRefused() throws Exception {
        HttpResponse<String> form = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port
                + "/trigger/vendas/v1.0.0/processarPedido/csrf-1"))
            .header("Content-Type", "text/plain")
            .POST(HttpRequest.BodyPublishers.ofString("[\"csrf-1\"]"))
            .build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> bareResume = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:"
                + this.port + "/api/v1/executions/csrf-1/resume")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> skailResume = this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:"
                + this.port + "/api/v1/executions/csrf-1/resume")).header("X-Skail-Request", "cli")
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertProblem(form, 415, "application/json");
        assertThat(this.client.find("csrf-1")).isEmpty();
        assertProblem(bareResume, 415, "X-Skail-Request");
        assertProblem(skailResume, 404, "Unknown execution 'csrf-1'");
    }

    @Test
    void badListParametersAreA400Problem() throws Exception {
        assertProblem(get("/api/v1/executions?page=abc"), 400, "page");
        assertProblem(get("/api/v1/executions?status=LOST"), 400, "Unknown status 'LOST'");
        assertProblem(get("/api/v1/executions?page=2000000"), 400, "page must be");
    }

    @Test
    void unknownExecutionIsA404Problem() throws Exception {
        assertProblem(get("/api/v1/executions/nobody"), 404, "Unknown execution 'nobody'");
        assertProblem(get("/api/v1/executions/nobody/history"), 404, "Unknown execution 'nobody'");
    }

    @Test
    void historyRouteListsStepsWithTheirAttempts() throws Exception {
        post("/trigger/vendas/v1.0.0/processarPedido/fail-1-web", "\"fail-1-web\"");
        awaitCompleted("fail-1-web");

        JsonNode history = json.readTree(get("/api/v1/executions/fail-1-web/history").body());

        assertThat(history.get("execution").get("status").asString()).isEqualTo("COMPLETED");
        JsonNode charge = history.get("steps").get(1);
        assertThat(charge.get("name").asString()).isEqualTo("cobrarCartao");
        assertThat(charge.get("idempotencyKey").asString()).isNotBlank();
        JsonNode attempts = charge.get("attempts");
        assertThat(attempts).hasSize(2);
        assertThat(attempts.get(0).get("outcome").asString()).isEqualTo("FAILED");
        assertThat(attempts.get(0).get("decision").asString()).isEqualTo("RETRY");
        assertThat(attempts.get(0).get("error").get("type").asString()).isEqualTo("dev.skail.runtime.GatewayException");
        assertThat(attempts.get(0).get("error").get("message").asString()).isEqualTo("gateway unavailable (run 1)");
        assertThat(attempts.get(0).has("startedAt")).isTrue();
        assertThat(attempts.get(0).has("endedAt")).isTrue();
        assertThat(attempts.get(0).has("backoff")).isTrue();
        assertThat(attempts.get(1).get("decision").asString()).isEqualTo("RECORDED");
    }

    private void assertProblem(HttpResponse<String> response, int status, String detail) {
        assertThat(response.statusCode()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                (type) -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = json.readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asString()).contains(detail);
    }

    private void awaitCompleted(String taskId) {
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                () -> this.client.find(taskId).map((e) -> e.status() == ExecutionStatus.COMPLETED).orElse(false));
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
