package dev.skail.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.Skail;
import dev.skail.SkailClient;
import dev.skail.SkailFunction;
import dev.skail.SkailNonDeterministicException;
import dev.skail.runtime.LocalReplay;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailReplayer;
import dev.skail.test.SkailTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Local replay of a production execution: the history downloaded from the HTTP API replays cleanly against the
 * current code with no database and no effects, and fails naming the step after the sequence of steps changed.
 */
@SkailTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "skail.retry.backoff.initial=0ms", "skail.retry.backoff.max=0ms", "sample.latency=0ms",
                "sample.gateway-failures=1", "sample.prazo-confirmacao=0s" })
class ReplayerTests {

    private static final SampleProperties PROPERTIES = new SampleProperties(null, Duration.ofSeconds(1), 0,
            Duration.ZERO, null, Duration.ZERO);

    @LocalServerPort
    int port;

    @Autowired
    SkailClient skail;

    @Autowired
    SkailAwait await;

    @TempDir
    Path downloads;

    @Test
    void exportedHistoryReplaysCleanlyWithoutRunningAnything() throws Exception {
        Path file = runAndDownload("replay-1");

        // no gateway, no journal: a command that ran would fail on them
        LocalReplay.Outcome outcome = SkailReplayer.fromFile(file).replay(new Pedidos(null, null, PROPERTIES));

        assertThat(outcome.status()).isEqualTo(LocalReplay.Outcome.Status.COMPLETED);
        assertThat(outcome.result()).isEqualTo("CONFIRMADO");
    }

    @Test
    void changedSequenceOfStepsFailsTheReplayNamingTheStep() throws Exception {
        Path file = runAndDownload("replay-2");

        assertThatExceptionOfType(SkailNonDeterministicException.class)
            .isThrownBy(() -> SkailReplayer.fromFile(file).replay(new PedidosSemEspera(null, null, PROPERTIES)))
            .withMessageContaining("step 1")
            .withMessageContaining("DELAY 'delay'")
            .withMessageContaining("COMMAND 'cobrarCartao'")
            .satisfies((ex) -> assertThat(ex.position()).isEqualTo(1));
    }

    private Path runAndDownload(String taskId) throws Exception {
        this.skail.trigger(taskId, Pedidos.class,
                (pedidos) -> pedidos.processarPedido(UUID.randomUUID(), new BigDecimal("99.90")));
        this.await.status(taskId, ExecutionStatus.COMPLETED);
        HttpResponse<Path> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                "http://localhost:" + this.port + "/api/v1/executions/" + taskId + "/history?download=true")).build(),
                HttpResponse.BodyHandlers.ofFile(this.downloads.resolve(taskId + ".json")));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Disposition")).hasValueSatisfying(
                (value) -> assertThat(value).contains("attachment").contains("skail-history-" + taskId + ".json"));
        assertThat(Files.readString(response.body())).contains("\"steps\"");
        return response.body();
    }

    /** The order flow after a change: the delay was removed, so the steps after it moved. */
    static class PedidosSemEspera extends Pedidos {

        PedidosSemEspera(GatewayDePagamento gateway, EffectJournal journal, SampleProperties properties) {
            super(gateway, journal, properties);
        }

        @Override
        @SkailFunction
        public String processarPedido(UUID pedidoId, BigDecimal valor) {
            reservarEstoque(pedidoId);
            try {
                cobrarCartao(pedidoId, valor);
            }
            catch (GatewayException ex) {
                return "PENDENTE";
            }
            Skail.delay(Duration.ZERO);
            confirmarPedido(pedidoId);
            return "CONFIRMADO";
        }
    }
}
