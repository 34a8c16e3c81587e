package dev.skail.replay;

import java.time.Duration;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailNonDeterministicException;
import dev.skail.SkailStep;
import dev.skail.SkailUsageException;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** Replay follows what was recorded: failure paths, transient exceptions, swallowed suspensions, changed delays. */
@SpringBootTest(classes = ExactReplayTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms", "skail.worker.concurrency=4",
        "skail.worker.async-threads=8" })
class ExactReplayTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    ReplayFlows flows;

    @Test
    void compensationThenRethrowFollowsTheRecordedFailurePathAndNeverChargesTwice() {
        this.client.trigger("processarPedido", "pedido-1", "pedido-1");

        SkailExecution execution = this.await.status("pedido-1", ExecutionStatus.FAILED);

        // cobrarCartao failed once (retryCount = 0), the function compensated and rethrew; its 2 retries replay the
        // recorded failure: no second charge, no second compensation, and no divergence
        assertThat(this.flows.runs("cobrarCartao/pedido-1")).isEqualTo(1);
        assertThat(this.flows.runs("estornarEstoque/pedido-1")).isEqualTo(1);
        assertThat(this.flows.runs("confirmarPedido/pedido-1")).isZero();
        assertThat(execution.error().type()).isEqualTo(ReplayFlows.PagamentoRecusadoException.class.getName());
        assertThat(execution.error().message()).isEqualTo("pagamento de 150.00 recusado para pedido-1");
        SkailHistory history = this.client.history("pedido-1");
        assertThat(history.steps()).extracting(SkailStep::name, SkailStep::status)
            .containsExactly(org.assertj.core.groups.Tuple.tuple("cobrarCartao", SkailStep.FAILED),
                    org.assertj.core.groups.Tuple.tuple("estornarEstoque", SkailStep.COMPLETED));
        assertThat(history.functionAttempts()).extracting(SkailAttempt::decision)
            .containsExactly("RETRY", "RETRY", "GIVE_UP");
    }

    @Test
    void exceptionThrownBeforeTheHistoryIsReplayedIsAFunctionFailureThatIsRedelivered() {
        this.client.trigger("reservarComFalhaNoReplay", "pedido-2", "pedido-2");
        this.await.status("pedido-2", ExecutionStatus.WAITING);

        this.clock.advance(Duration.ofMinutes(1));

        SkailExecution execution = this.await.status("pedido-2", ExecutionStatus.COMPLETED);
        assertThat(execution.result(String.class)).isEqualTo("reservado");
        assertThat(this.flows.runs("reservarEstoque/pedido-2")).isEqualTo(1);
        SkailHistory history = this.client.history("pedido-2");
        assertThat(history.functionAttempts()).singleElement().satisfies((attempt) -> {
            assertThat(attempt.decision()).isEqualTo(SkailAttempt.RETRY);
            assertThat(attempt.error().type()).isEqualTo(IllegalStateException.class.getName());
        });
    }

    @Test
    void aThousandAsyncCommandsCompleteOnNoMoreThreadsThanTheBound() {
        this.client.trigger("reservarItens", "itens-1", 1000);

        SkailExecution execution = this.await.status("itens-1", ExecutionStatus.COMPLETED);

        assertThat(execution.result(Long.class)).isEqualTo(999L * 1000 / 2);
        assertThat(this.client.history("itens-1").steps()).hasSize(1000);
        assertThat(this.flows.asyncThreadsPeak()).isBetween(1, 8);
    }

    @Test
    void functionThatSwallowsTheSuspensionAndReturnsFailsNamingTheCatch() {
        this.client.trigger("engolirSuspensao", "pedido-3", "pedido-3");

        SkailExecution execution = this.await.status("pedido-3", ExecutionStatus.FAILED);

        assertThat(execution.error().type()).isEqualTo(SkailUsageException.class.getName());
        assertThat(execution.error().message()).contains("engolirSuspensao")
            .contains(ReplayFlows.class.getName() + ".engolirSuspensao(ReplayFlows.java:")
            .contains("Do not catch Throwable");
    }

    @Test
    void eventWaitWhoseTimeoutChangedDivergesAsADelayWhoseDurationChangedDoes() {
        this.flows.prazo = Duration.ofHours(1);
        this.client.trigger("aguardarPagamento", "pedido-4", "pedido-4");
        this.await.status("pedido-4", ExecutionStatus.WAITING);

        this.flows.prazo = Duration.ofHours(2); // a new deployment asks for another timeout
        this.client.fire("pedido-4", "pagamento", "PIX-1");

        SkailExecution execution = this.await.status("pedido-4", ExecutionStatus.FAILED);
        assertThat(execution.error().type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(execution.error().message()).contains("EVENT 'pagamento' [3600000]", "[7200000]");
    }

    @Test
    void textCutInTheMiddleOfAnEmojiIsReplayedAsTheCommandReturnedIt() {
        this.client.trigger("resumirNota", "pedido-5", "pedido-5", "Pedido \uD83D\uDE00 urgente");
        this.await.status("pedido-5", ExecutionStatus.WAITING);

        this.clock.advance(Duration.ofDays(1));

        // the store keeps text as UTF-8, which has no form for half a surrogate pair: it is recorded escaped
        SkailExecution execution = this.await.status("pedido-5", ExecutionStatus.COMPLETED);
        assertThat(execution.result(String.class)).isEqualTo("Pedido \uD83D");
        assertThat(this.flows.runs("cortarNota/pedido-5")).isEqualTo(1);
        assertThat(this.client.history("pedido-5").steps()).first()
            .satisfies((step) -> assertThat(step.result(String.class)).isEqualTo("Pedido \uD83D"));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ ReplayFlows.class, SkailTestConfiguration.class })
    static class App {

    }
}
