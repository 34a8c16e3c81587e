package dev.skail.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailStep;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's order flow, end to end through its own controller and the skail routes. No timed poll (1 h): a poll
 * holds the worker's free slots while it claims, and a trigger at that moment would find none; the work runs on the
 * trigger's hand-off and on the polls that a delay's sleep, an event and a delivery's end (when work may wait) ask for.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.store.url=jdbc:h2:mem:sample-${random.uuid};DB_CLOSE_DELAY=-1",
                "skail.retry.backoff.initial=0ms", "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=1h",
                "sample.latency=0ms", "sample.gateway-failures=2", "sample.prazo-confirmacao=0s" })
class PedidosTests {

    @LocalServerPort
    int port;

    @Autowired
    SkailClient skail;

    @Test
    void approvedOrderIsConfirmedAfterTheGatewaysTransientFailures() {
        SkailExecution execution = createOrder("150.00");

        SkailExecution done = awaitEnd(execution.taskId());

        assertThat(done.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(done.result(String.class)).isEqualTo("CONFIRMADO");
        var steps = this.skail.history(execution.taskId()).steps();
        assertThat(steps).extracting(SkailStep::name).containsExactly("reservarEstoque", "delay", "cobrarCartao",
                "confirmarPedido");
        assertThat(steps.get(2).attempts()).hasSize(3);
    }

    @Test
    void refusedChargeIsAResultThatReleasesTheStock() {
        SkailExecution done = awaitEnd(createOrder("1500.00").taskId());

        assertThat(done.result(String.class)).isEqualTo("RECUSADO");
        assertThat(this.skail.history(done.taskId()).steps()).extracting(SkailStep::name)
            .containsExactly("reservarEstoque", "delay", "cobrarCartao", "liberarEstoque");
    }

    @Test
    void gatewayThatStaysDownIsCompensatedAfterNineAttempts() {
        SkailExecution done = awaitEnd(createOrder("666.00").taskId());

        assertThat(done.result(String.class)).isEqualTo("PENDENTE");
        var steps = this.skail.history(done.taskId()).steps();
        assertThat(steps).extracting(SkailStep::name).containsExactly("reservarEstoque", "delay", "cobrarCartao",
                "liberarEstoque", "marcarPedidoComoPendente");
        assertThat(steps.get(2).attempts()).hasSize(9);
        assertThat(steps.get(2).error().type()).isEqualTo(GatewayException.class.getName());
    }

    @Test
    void theAmountKeepsItsScaleFromTheRequestToTheChargeAndTheAnswers() {
        String created = client().post().uri("/pedidos").header("Content-Type", "application/json")
            .body("{\"valor\": 150.00}").retrieve().body(String.class);
        String taskId = JsonMapper.shared().readTree(created).get("taskId").asString();

        SkailExecution done = awaitEnd(taskId);

        assertThat(created).contains(",150.00]");
        assertThat(client().get().uri("/pedidos/" + taskId).retrieve().body(String.class)).contains(",150.00]");
        assertThat(done.argument(1, BigDecimal.class)).isEqualTo(new BigDecimal("150.00"));
        SkailStep charge = this.skail.history(taskId).steps().get(2);
        assertThat(charge.name()).isEqualTo("cobrarCartao");
        assertThat(charge.argument(1, BigDecimal.class)).isEqualTo(new BigDecimal("150.00"));
    }

    @Test
    void anOrderThatEndsWithinTheWaitIsAnsweredWithItsResult() {
        var answer = client().post().uri("/pedidos").header("Content-Type", "application/json")
            .body("{\"valor\": 10.00}").retrieve().toEntity(String.class);

        assertThat(answer.getStatusCode().value()).isEqualTo(200);
        assertThat(answer.getBody()).contains("\"status\":\"COMPLETED\"").contains("\"result\":\"CONFIRMADO\"");
    }

    @Test
    void anOrderStillRunningWhenTheWaitRunsOutIsAcceptedWithItsLocation() {
        var answer = client().post().uri("/pedidos?espera=0s").header("Content-Type", "application/json")
            .body("{\"valor\": 10.00}").retrieve().toEntity(String.class);

        String taskId = JsonMapper.shared().readTree(answer.getBody()).get("taskId").asString();
        assertThat(answer.getStatusCode().value()).isEqualTo(202);
        assertThat(answer.getHeaders().getLocation()).hasToString("/pedidos/" + taskId);
        assertThat(awaitEnd(taskId).result(String.class)).isEqualTo("CONFIRMADO");
    }

    @Test
    void triggerRouteRunsTheSameFunction() {
        String body = "[\"" + UUID.randomUUID() + "\", 10.00]";
        JsonNode accepted = JsonMapper.shared().readTree(client().post().uri("/trigger/vendas/v1.0.0/processarPedido/route-1")
            .header("Content-Type", "application/json").body(body).retrieve().body(String.class));

        // this instance had a free worker thread: it took the execution in the trigger's own transaction
        assertThat(accepted.get("status").asString()).isEqualTo("RUNNING");
        assertThat(awaitEnd("route-1").result(String.class)).isEqualTo("CONFIRMADO");
    }

    private SkailExecution createOrder(String valor) {
        String body = client().post().uri("/pedidos").header("Content-Type", "application/json")
            .body("{\"valor\": " + new BigDecimal(valor) + "}").retrieve().body(String.class);
        String taskId = JsonMapper.shared().readTree(body).get("taskId").asString();
        return this.skail.find(taskId).orElseThrow();
    }

    private SkailExecution awaitEnd(String taskId) {
        return Awaitility.await().atMost(Duration.ofSeconds(30))
            .until(() -> this.skail.find(taskId).orElseThrow(), (e) -> e.status().isTerminal());
    }

    private RestClient client() {
        return RestClient.create("http://localhost:" + this.port);
    }
}
