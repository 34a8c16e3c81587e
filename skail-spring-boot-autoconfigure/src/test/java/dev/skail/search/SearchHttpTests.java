package dev.skail.search;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailQuery;
import dev.skail.test.SkailAwait;
import dev.skail.test.VirtualClock;
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

/**
 * The search on the HTTP API: the filters of {@code GET /api/v1/executions}, {@code GET /api/v1/executions/counts},
 * the tags of {@code GET /api/v1/executions/{id}}, the bulk {@code POST /api/v1/executions/cancel} and
 * {@code /resume} with their confirmed count, and a 400 naming the parameter for every bad value.
 * {@code skail.http.max-bulk} is 3 here.
 */
@SpringBootTest(classes = SearchApp.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-search-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.worker.poll-interval=20ms", "skail.http.max-bulk=3" })
class SearchHttpTests {

    private static final JsonMapper json = JsonMapper.shared();

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    PedidosBuscaveis pedidos;

    @Test
    void theListTakesEveryFilterAndAnswersAPageWithTheTags() throws Exception {
        UUID pedidoId = UUID.fromString("8d7e4a36-1f0b-4c55-9a63-2f1c0c9a7b11");
        Pedido pedido = new Pedido(pedidoId, "c-3141", new BigDecimal("89.90"),
                OffsetDateTime.of(2025, 3, 14, 9, 30, 0, 0, ZoneOffset.ofHours(-3)),
                List.of(new Pedido.Item("SKU-CHA-100G", 3, new BigDecimal("29.97"))));
        Instant before = this.clock.instant();
        this.clock.advance(Duration.ofMinutes(1));
        HttpResponse<String> triggered = post("/trigger/vendas/v1.0.0/processarPedido/http-list-1",
                json.writeValueAsString(List.of(pedidoId, "LOJA", pedido)));
        assertThat(triggered.statusCode()).isEqualTo(202);
        assertThat(json.readTree(triggered.body()).get("tags").toString())
            .isEqualTo("{\"canal\":[\"LOJA\"],\"pedido\":[\"8d7e4a36-1f0b-4c55-9a63-2f1c0c9a7b11\"]}");
        this.await.status("http-list-1", ExecutionStatus.WAITING);
        this.clock.advance(Duration.ofMinutes(1));
        Instant after = this.clock.instant();

        JsonNode page = json.readTree(get("/api/v1/executions?function=processarPedido&status=waiting,FAILED"
                + "&createdFrom=" + encode(before.toString()) + "&createdTo=" + encode(after.atOffset(
                        ZoneOffset.ofHours(-3)).toString()) + "&updatedFrom=" + before + "&tag=pedido:" + pedidoId
                + "&tag=cliente:c-3141&id=list-1&page=0&size=5").body());

        assertThat(page.get("workload").asString()).isEqualTo("vendas");
        assertThat(page.get("version").asString()).isEqualTo("v1.0.0");
        assertThat(page.get("page").asInt()).isZero();
        assertThat(page.get("size").asInt()).isEqualTo(5);
        assertThat(page.get("hasMore").asBoolean()).isFalse();
        assertThat(page.get("items")).hasSize(1);
        JsonNode item = page.get("items").get(0);
        assertThat(item.get("taskId").asString()).isEqualTo("http-list-1");
        assertThat(item.get("tags").toString()).isEqualTo("{\"canal\":[\"LOJA\"],\"cliente\":[\"c-3141\"],"
                + "\"pedido\":[\"8d7e4a36-1f0b-4c55-9a63-2f1c0c9a7b11\"],\"valor\":[\"89.9\"]}");
        // an offset date-time whose '+' came unencoded (a space) is read as meant
        assertThat(json.readTree(get("/api/v1/executions?tag=pedido:" + pedidoId + "&createdFrom="
                + before.atOffset(ZoneOffset.ofHours(2)).toLocalDateTime() + "%2002:00").body()).get("items"))
            .hasSize(1);
        assertThat(json.readTree(get("/api/v1/executions?tag=pedido:" + pedidoId + "&createdTo=" + before).body())
            .get("items")).isEmpty();
        JsonNode read = json.readTree(get("/api/v1/executions/http-list-1").body());
        assertThat(read.get("tags").get("cliente").get(0).asString()).isEqualTo("c-3141");
    }

    @Test
    void countsAnswerEveryStatusAndTheTotalForTheFilters() throws Exception {
        String lote = "http-counts";
        this.client.trigger("aguardarAprovacao", "http-counts-1", lote, 1);
        this.client.trigger("registrar", "http-counts-2", lote, 2L);
        this.client.trigger("registrar", "http-counts-3", lote, 3L);
        this.await.status("http-counts-1", ExecutionStatus.WAITING);
        this.await.status("http-counts-2", ExecutionStatus.COMPLETED);
        this.await.status("http-counts-3", ExecutionStatus.COMPLETED);

        HttpResponse<String> counts = get("/api/v1/executions/counts?tag=lote:" + lote + "&status=FAILED");

        assertThat(counts.statusCode()).isEqualTo(200);
        assertThat(counts.body()).isEqualTo("{\"PENDING\":0,\"RUNNING\":0,\"WAITING\":1,\"COMPLETED\":2,\"FAILED\":0,"
                + "\"CANCELLED\":0,\"total\":3}");
        assertThat(get("/api/v1/executions/counts?tag=lote:" + lote + "&function=registrar").body())
            .isEqualTo("{\"PENDING\":0,\"RUNNING\":0,\"WAITING\":0,\"COMPLETED\":2,\"FAILED\":0,\"CANCELLED\":0,"
                    + "\"total\":2}");
    }

    @Test
    void bulkCancelActsOnAtMostMaxBulkOfTheWaitingOnesOnceTheirCountIsConfirmed() throws Exception {
        String lote = "http-bulk-cancel";
        for (int i = 1; i <= 5; i++) {
            this.client.trigger("aguardarAprovacao", "bulk-cancel-" + i, lote, i);
            this.clock.advance(Duration.ofSeconds(1));
        }
        this.client.trigger("registrar", "bulk-cancel-done", lote, 6L);
        for (int i = 1; i <= 5; i++) {
            this.await.status("bulk-cancel-" + i, ExecutionStatus.WAITING);
        }
        this.await.status("bulk-cancel-done", ExecutionStatus.COMPLETED);
        String filters = "?tag=lote:" + lote;

        HttpResponse<String> stale = post("/api/v1/executions/cancel" + filters + "&expected=4", "");
        HttpResponse<String> first = post("/api/v1/executions/cancel" + filters + "&expected=5", "");

        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(stale.headers().firstValue("Content-Type")).hasValueSatisfying(
                (type) -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = json.readTree(stale.body());
        assertThat(problem.get("matched").asLong()).isEqualTo(5);
        assertThat(problem.get("expected").asLong()).isEqualTo(4);
        assertThat(problem.get("title").asString()).isEqualTo("Count changed");
        assertThat(problem.get("detail").asString()).contains("5 execution(s) match");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).isEqualTo("{\"matched\":5,\"acted\":3,\"skipped\":2}");
        // the newest three
        for (int i = 3; i <= 5; i++) {
            this.await.status("bulk-cancel-" + i, ExecutionStatus.CANCELLED);
        }
        assertThat(statuses(lote)).containsExactly("COMPLETED", "CANCELLED", "CANCELLED", "CANCELLED", "WAITING",
                "WAITING");

        HttpResponse<String> rest = post("/api/v1/executions/cancel" + filters + "&expected=2", "");

        assertThat(rest.body()).isEqualTo("{\"matched\":2,\"acted\":2,\"skipped\":0}");
        this.await.status("bulk-cancel-1", ExecutionStatus.CANCELLED);
        this.await.status("bulk-cancel-2", ExecutionStatus.CANCELLED);
        assertThat(post("/api/v1/executions/cancel" + filters + "&expected=0", "").body())
            .isEqualTo("{\"matched\":0,\"acted\":0,\"skipped\":0}");
        assertThat(post("/api/v1/executions/cancel" + filters + "&status=COMPLETED&expected=0", "").body())
            .isEqualTo("{\"matched\":0,\"acted\":0,\"skipped\":0}");
        assertThat(this.client.find("bulk-cancel-done").orElseThrow().status()).isEqualTo(ExecutionStatus.COMPLETED);
    }

    @Test
    void bulkResumeResumesTheFailedOnesAndA409GivesTheNewCountWhenAnotherFailedMeanwhile() throws Exception {
        String lote = "http-bulk-resume";
        this.pedidos.gatewayFora(true);
        try {
            this.client.trigger("cobrarLote", "bulk-resume-1", lote);
            this.client.trigger("cobrarLote", "bulk-resume-2", lote);
            this.await.status("bulk-resume-1", ExecutionStatus.FAILED);
            this.await.status("bulk-resume-2", ExecutionStatus.FAILED);
            String filters = "?tag=lote:" + lote + "&function=cobrarLote";
            JsonNode counted = json.readTree(get("/api/v1/executions/counts" + filters).body());
            assertThat(counted.get("FAILED").asLong()).isEqualTo(2);
            // the operator confirms 2; meanwhile a third fails
            this.client.trigger("cobrarLote", "bulk-resume-3", lote);
            this.await.status("bulk-resume-3", ExecutionStatus.FAILED);

            HttpResponse<String> changed = post("/api/v1/executions/resume" + filters + "&expected=2", "");

            assertThat(changed.statusCode()).isEqualTo(409);
            assertThat(json.readTree(changed.body()).get("matched").asLong()).isEqualTo(3);
            assertThat(statuses(lote)).containsOnly("FAILED");
            this.pedidos.gatewayFora(false);

            HttpResponse<String> resumed = post("/api/v1/executions/resume" + filters + "&expected=3", "");

            assertThat(resumed.body()).isEqualTo("{\"matched\":3,\"acted\":3,\"skipped\":0}");
            for (int i = 1; i <= 3; i++) {
                assertThat(this.await.status("bulk-resume-" + i, ExecutionStatus.COMPLETED).result(String.class))
                    .isEqualTo("APROVADO");
            }
        }
        finally {
            this.pedidos.gatewayFora(false);
        }
    }

    @Test
    void bulkRoutesRefuseWhatACrossSiteFormCouldSend() throws Exception {
        this.client.trigger("aguardarAprovacao", "bulk-csrf-1", "http-bulk-csrf", 1);
        this.await.status("bulk-csrf-1", ExecutionStatus.WAITING);

        HttpResponse<String> form = this.http.send(HttpRequest.newBuilder(uri("/api/v1/executions/cancel"
                + "?tag=lote:http-bulk-csrf&expected=1"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(""))
            .build(), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> withHeader = this.http.send(HttpRequest.newBuilder(uri("/api/v1/executions/cancel"
                + "?tag=lote:http-bulk-csrf&expected=1"))
            .header("X-Skail-Request", "monitor")
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(), HttpResponse.BodyHandlers.ofString());

        assertProblem(form, 415, "X-Skail-Request");
        assertThat(withHeader.body()).isEqualTo("{\"matched\":1,\"acted\":1,\"skipped\":0}");
        this.await.status("bulk-csrf-1", ExecutionStatus.CANCELLED);
    }

    static Stream<Arguments> badParameters() {
        return Stream.of(Arguments.of("/api/v1/executions?status=LOST", "status", "Unknown status 'LOST'"),
                Arguments.of("/api/v1/executions?status=FAILED,,lost", "status", "Unknown status 'lost'"),
                Arguments.of("/api/v1/executions?function=a&function=b", "function", "give it once"),
                Arguments.of("/api/v1/executions?createdFrom=yesterday", "createdFrom", "ISO-8601"),
                Arguments.of("/api/v1/executions?createdTo=2025-03-01", "createdTo", "ISO-8601"),
                Arguments.of("/api/v1/executions?updatedFrom=2025-13-01T00:00:00Z", "updatedFrom", "ISO-8601"),
                Arguments.of("/api/v1/executions?updatedTo=2025-03-01T10:00:00", "updatedTo", "ISO-8601"),
                Arguments.of("/api/v1/executions?tag=pedido", "tag", "key:value"),
                Arguments.of("/api/v1/executions?tag=com%20espaco:x", "tag", "letters, digits"),
                Arguments.of("/api/v1/executions?tag=pedido:" + "x".repeat(201), "tag", "at most 200"),
                Arguments.of("/api/v1/executions?page=abc", "page", "page must be"),
                Arguments.of("/api/v1/executions?page=-1", "page", "page must be"),
                Arguments.of("/api/v1/executions?page=2000000", "page", "page must be"),
                Arguments.of("/api/v1/executions?size=0", "size", "size from 1 to 200"),
                Arguments.of("/api/v1/executions?size=201", "size", "size from 1 to 200"),
                Arguments.of("/api/v1/executions/counts?createdFrom=ontem", "createdFrom", "ISO-8601"),
                Arguments.of("/api/v1/executions/counts?tag=:x", "tag", "letters, digits"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badParameters")
    void aBadParameterIsA400ThatNamesIt(String path, String parameter, String detail) throws Exception {
        assertProblem(get(path), 400, "Invalid parameter '" + parameter + "'");
        assertProblem(get(path), 400, detail);
    }

    @Test
    void bulkRoutesDemandTheConfirmedCountAndRecordNothingWithoutIt() throws Exception {
        this.client.trigger("aguardarAprovacao", "bulk-expected-1", "http-bulk-expected", 1);
        this.await.status("bulk-expected-1", ExecutionStatus.WAITING);
        String filters = "?tag=lote:http-bulk-expected";

        assertProblem(post("/api/v1/executions/cancel" + filters, ""), 400, "Invalid parameter 'expected'");
        assertProblem(post("/api/v1/executions/cancel" + filters + "&expected=-1", ""), 400,
                "Invalid parameter 'expected'");
        assertProblem(post("/api/v1/executions/resume" + filters + "&expected=many", ""), 400,
                "Invalid parameter 'expected'");
        assertProblem(post("/api/v1/executions/cancel?status=LOST&expected=1", ""), 400,
                "Invalid parameter 'status'");

        assertThat(this.client.find("bulk-expected-1").orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING);
    }

    /** The statuses of the executions of a lote, newest first. */
    private List<String> statuses(String lote) {
        List<String> statuses = new ArrayList<>();
        for (SkailExecution execution : this.client.search(SkailQuery.all().withTag("lote", lote)).items()) {
            statuses.add(execution.status().name());
        }
        return statuses;
    }

    private void assertProblem(HttpResponse<String> response, int status, String detail) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                (type) -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = json.readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("detail").asString()).contains(detail);
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + this.port + path);
    }

    private HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
