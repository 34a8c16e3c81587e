package dev.skail.sample;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailNonDeterministicException;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stories of skail's documentation on virtual time: "Como funciona" (reserve, 24-hour delay, charge, with a
 * restart during the delay) and the two versions of the reminder of "Determinismo e replay".
 */
class HistoriasDaDocumentacaoTests {

    @TempDir
    Path workDir;

    @Test
    void comoFuncionaReserveWait24HoursRestartThenCharge() throws Exception {
        Path journal = this.workDir.resolve("effects.log");
        String store = "jdbc:h2:file:" + this.workDir.resolve("store/skail") + ";FILE_LOCK=FS;WRITE_DELAY=0";
        String taskId = "pedido-" + UUID.randomUUID();
        try (ConfigurableApplicationContext first = start(store, journal)) {
            first.getBean(SkailClient.class).trigger(taskId, Pedidos.class,
                    (pedidos) -> pedidos.processarPedido(UUID.randomUUID(), new BigDecimal("150.00")));
            SkailExecution waiting = first.getBean(SkailAwait.class).status(taskId, ExecutionStatus.WAITING);
            assertThat(waiting.nextRunAt()).isAfter(first.getBean(VirtualClock.class).instant().plus(Duration.ofHours(23)));
            first.getBean(VirtualClock.class).advance(Duration.ofHours(12));
        }
        // the application restarts during the delay: no thread waited, the history holds the delay
        assertThat(Files.readAllLines(journal)).containsExactly(taskId + " reservarEstoque");

        try (ConfigurableApplicationContext second = start(store, journal)) {
            SkailClient client = second.getBean(SkailClient.class);
            assertThat(client.find(taskId).orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING);

            second.getBean(VirtualClock.class).advance(Duration.ofHours(24));

            SkailExecution done = second.getBean(SkailAwait.class).status(taskId, ExecutionStatus.COMPLETED);
            assertThat(done.result(String.class)).isEqualTo("CONFIRMADO");
            assertThat(client.history(taskId).steps()).extracting(SkailStep::name)
                .containsExactly("reservarEstoque", "delay", "cobrarCartao", "confirmarPedido");
        }
        assertThat(Files.readAllLines(journal)).containsExactly(taskId + " reservarEstoque",
                taskId + " cobrarCartao", taskId + " confirmarPedido");
    }

    @Test
    void lembreteQueLeORelogioNaFunctionDivergeNoReplay() throws Exception {
        String store = "jdbc:h2:mem:lembretes-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (ConfigurableApplicationContext app = start(store, this.workDir.resolve("effects.log"))) {
            VirtualClock clock = app.getBean(VirtualClock.class);
            SkailClient client = app.getBean(SkailClient.class);
            SkailAwait await = app.getBean(SkailAwait.class);
            Lembretes.Assinatura assinatura = new Lembretes.Assinatura("ana", clock.instant().plus(Duration.ofDays(30)));
            client.trigger("wrong", Lembretes.class, (lembretes) -> lembretes.enviarLembreteLendoRelogio(assinatura));
            client.trigger("right", Lembretes.class, (lembretes) -> lembretes.enviarLembrete(assinatura));
            await.status("wrong", ExecutionStatus.WAITING);
            await.status("right", ExecutionStatus.WAITING);

            clock.advance(Duration.ofDays(27));

            SkailExecution wrong = await.status("wrong", ExecutionStatus.FAILED);
            assertThat(wrong.error().type()).isEqualTo(SkailNonDeterministicException.class.getName());
            assertThat(wrong.error().message()).contains("step 0").contains("DELAY");
            SkailExecution right = await.status("right", ExecutionStatus.COMPLETED);
            assertThat(client.history(right.taskId()).steps()).extracting(SkailStep::name)
                .containsExactly("obterDataAtual", "delay", "notificar");
        }
    }

    private static ConfigurableApplicationContext start(String store, Path journal) {
        return new SpringApplicationBuilder(SampleApplication.class, SkailTestConfiguration.class)
            .run("--server.port=0", "--skail.store.url=" + store, "--sample.journal=" + journal, "--sample.latency=0ms",
                    "--sample.gateway-failures=0", "--sample.prazo-confirmacao=24h", "--skail.worker.poll-interval=1h",
                    "--skail.worker.shutdown-timeout=5s", "--spring.main.banner-mode=off");
    }

}
