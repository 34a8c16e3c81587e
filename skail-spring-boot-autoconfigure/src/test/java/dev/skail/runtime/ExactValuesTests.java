package dev.skail.runtime;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.runtime.ExactValueFlows.Cobranca;
import dev.skail.runtime.ExactValueFlows.Item;
import dev.skail.runtime.ExactValueFlows.Pedido;
import dev.skail.runtime.ExactValueFlows.Recibo;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Money and times reach the function, its commands, its events and its child exactly as sent (equal, of the same
 * class, {@code 150.00} with its scale, an offset kept), on the first run and on every replay, whether the execution
 * is triggered from Java or over HTTP; the HTTP API shows the recorded JSON as it is.
 */
@SpringBootTest(classes = { TestApplication.class, ExactValueFlows.class, ExactValueFlows.Seen.class },
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.workload=vendas:v1.0.0",
                "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
                "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class ExactValuesTests {

    private static final BigDecimal AMOUNT = new BigDecimal("150.00");

    private static final BigDecimal BEYOND_A_DOUBLE = new BigDecimal("12345678901234567.89");

    private static final OffsetDateTime AT = OffsetDateTime.parse("2026-03-01T10:15:30.5+03:00");

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    int port;

    @Autowired
    SkailClient client;

    @Autowired
    ExactValueFlows.Seen seen;

    private static Pedido pedido(String id) {
        return new Pedido(UUID.nameUUIDFromBytes(id.getBytes()), AMOUNT, AT,
                List.of(new Item("SKU-1", 2, new BigDecimal("75.00")), new Item("SKU-2", 1, BEYOND_A_DOUBLE)));
    }

    @Test
    void valuesTriggeredThroughTheClientAreExactOnTheFirstRunAndOnEveryReplay() throws Exception {
        Pedido pedido = pedido("exact-client");
        this.client.trigger("pagarPedido", "exact-client", pedido);
        awaitStatus("exact-client", ExecutionStatus.WAITING);

        this.client.fire("exact-client", "pago", AMOUNT);

        assertExact("exact-client", pedido);
    }

    @Test
    void valuesTriggeredOverHttpAreExactOnTheFirstRunAndOnEveryReplay() throws Exception {
        Pedido pedido = pedido("exact-http");
        String body = "{\"id\": \"" + pedido.id() + "\", \"valor\": 150.00, \"criadoEm\": \"2026-03-01T10:15:30.5+03:00\","
                + " \"itens\": [{\"sku\": \"SKU-1\", \"quantidade\": 2, \"preco\": 75.00},"
                + " {\"sku\": \"SKU-2\", \"quantidade\": 1, \"preco\": 12345678901234567.89}]}";
        HttpResponse<String> triggered = post("/trigger/vendas/v1.0.0/pagarPedido/exact-http", body);
        assertThat(triggered.statusCode()).isEqualTo(202);
        assertThat(triggered.body()).contains("\"valor\":150.00").contains("\"preco\":12345678901234567.89")
            .contains("\"criadoEm\":\"2026-03-01T10:15:30.5+03:00\"");
        awaitStatus("exact-http", ExecutionStatus.WAITING);

        HttpResponse<String> fired = post("/api/v1/fire/vendas/v1.0.0/exact-http/pago", "150.00");
        assertThat(fired.statusCode()).isEqualTo(202);

        assertExact("exact-http", pedido);
    }

    private void assertExact(String taskId, Pedido pedido) throws Exception {
        SkailExecution done = awaitStatus(taskId, ExecutionStatus.COMPLETED);

        // the command saw exactly what was sent (it ran once: its result is recorded)
        assertThat(this.seen.seen(taskId, "command saw")).hasSize(1);
        assertSameValue(this.seen.seen(taskId, "command saw").get(0), pedido);
        // the function saw the same values on every run: the first, after the event, after the child, after the
        // failed confirmation
        List<Object> runs = this.seen.seen(taskId, "pedido");
        assertThat(runs).hasSizeGreaterThanOrEqualTo(4);
        for (String point : List.of("pedido", "cobranca", "pago", "agora", "protocolo", "total")) {
            List<Object> values = this.seen.seen(taskId, point);
            assertThat(values).as(point).hasSizeGreaterThanOrEqualTo(2);
            for (Object value : values) {
                assertSameValue(value, values.get(0));
            }
        }
        assertSameValue(this.seen.seen(taskId, "pedido").get(0), pedido);
        assertSameValue(this.seen.seen(taskId, "pago").get(0), AMOUNT);
        assertSameValue(this.seen.seen(taskId, "total").get(0), new BigDecimal("12345678901234717.89"));
        Cobranca cobranca = (Cobranca) this.seen.seen(taskId, "cobranca").get(0);
        assertThat(cobranca.totais()).containsExactly(org.assertj.core.api.Assertions.entry("valor", AMOUNT),
                org.assertj.core.api.Assertions.entry("exato", BEYOND_A_DOUBLE));

        // typed access to the result
        Recibo recibo = done.result(Recibo.class);
        assertThat(recibo).isEqualTo(new Recibo(pedido, cobranca, AMOUNT, new BigDecimal("12345678901234717.89"),
                (java.time.Instant) this.seen.seen(taskId, "agora").get(0),
                (UUID) this.seen.seen(taskId, "protocolo").get(0)));
        assertThat(done.argument(0, Pedido.class)).isEqualTo(pedido);
        // the HTTP API shows the recorded JSON as it is
        String answer = get("/api/v1/executions/" + taskId).body();
        assertThat(answer).contains("\"pago\":150.00").contains("\"valor\":150.00")
            .contains("\"preco\":12345678901234567.89").contains("\"criadoEm\":\"2026-03-01T10:15:30.5+03:00\"")
            .contains("\"arguments\":[{");
        assertThat(get("/api/v1/executions/" + taskId + "/history").body()).contains("\"payload\":150.00");
    }

    @Test
    void aRepeatedTriggerIsTheSameExecutionWhenItsArgumentsDecodeToTheSameValues() throws Exception {
        HttpResponse<String> first = post("/trigger/vendas/v1.0.0/repetir/repeat-1", "[\"r\", 1, 150.00]");
        assertThat(first.statusCode()).isEqualTo(202);

        HttpResponse<String> asDecimal = post("/trigger/vendas/v1.0.0/repetir/repeat-1", "[\"r\", 1.0, 150.00]");
        HttpResponse<String> otherScale = post("/trigger/vendas/v1.0.0/repetir/repeat-1", "[\"r\", 1, 150.0]");
        HttpResponse<String> otherAmount = post("/trigger/vendas/v1.0.0/repetir/repeat-1", "[\"r\", 1, 150.01]");

        assertThat(asDecimal.statusCode()).isEqualTo(202);
        assertThat(otherScale.statusCode()).isEqualTo(202);
        assertThat(otherScale.body()).contains("\"arguments\":[\"r\",1,150.00]");
        assertThat(otherAmount.statusCode()).isEqualTo(409);
        assertThat(this.client.find("repeat-1").orElseThrow().arguments()).isEqualTo("[\"r\",1,150.00]");
    }

    private SkailExecution awaitStatus(String taskId, ExecutionStatus status) {
        return Awaitility.await()
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> this.client.find(taskId).orElse(null), (execution) -> execution != null
                    && execution.status() == status);
    }

    private static void assertSameValue(Object actual, Object expected) {
        assertThat(actual).isEqualTo(expected);
        assertThat(actual.getClass()).isEqualTo(expected.getClass());
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
