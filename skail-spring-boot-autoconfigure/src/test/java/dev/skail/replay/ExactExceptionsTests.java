package dev.skail.replay;

import java.time.Duration;

import com.acme.banco.GatewayIndisponivelException;
import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.runtime.SkailDeclarationException;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** A command's exception reaches the function as the same class, message, fields and causes, run after run. */
@SpringBootTest(classes = ExactExceptionsTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=20ms" })
class ExactExceptionsTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    ExceptionFlows flows;

    @Test
    void springHttpClientErrorCaughtByTypeIsCaughtAgainOnReplayWithItsStatusHeadersAndBody() {
        this.client.trigger("cobrarNoGateway", "pedido-10", "pedido-10");
        this.await.status("pedido-10", ExecutionStatus.WAITING);

        this.clock.advance(Duration.ofMinutes(5));

        this.await.status("pedido-10", ExecutionStatus.COMPLETED);
        String expected = "recusado 409 {\"code\":\"card_declined\",\"amount\":150.00} req-pedido-10";
        assertThat(this.flows.seen("pedido-10")).containsExactly(expected, expected);
        assertThat(this.flows.runs("chamarGateway/pedido-10")).isEqualTo(1);
        assertThat(this.flows.runs("estornarEstoque/pedido-10")).isEqualTo(1);
    }

    @Test
    void businessExceptionWithFieldsAndCausesIsTheSameOnTheFirstRunAndOnReplay() {
        this.client.trigger("debitarConta", "pedido-11", "pedido-11");
        this.await.status("pedido-11", ExecutionStatus.WAITING);

        this.clock.advance(Duration.ofMinutes(5));

        this.await.status("pedido-11", ExecutionStatus.COMPLETED);
        String expected = "saldo insuficiente na conta 0001-9: faltam 150.00 | 0001-9 | 150.00 | "
                + "IllegalStateException: saldo consultado às 10:15 | SocketTimeoutException: read timed out";
        assertThat(this.flows.seen("pedido-11")).containsExactly(expected, expected);
        assertThat(this.flows.runs("debitar/pedido-11")).isEqualTo(1);
    }

    @Test
    void declaredExceptionThatCannotBeRebuiltFailsStartUpNamingIt() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(dev.skail.autoconfigure.SkailAutoConfiguration.class))
            .withPropertyValues("skail.workload=vendas:v1.0.0", "skail.worker.enabled=false",
                    "skail.store.url=jdbc:h2:mem:skail-unrebuildable;DB_CLOSE_DELAY=-1")
            .withBean(Unrebuildable.class)
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(context.getStartupFailure()).rootCause()
                    .isInstanceOf(SkailDeclarationException.class)
                    .hasMessageContaining(GatewayIndisponivelException.class.getName())
                    .hasMessageContaining("conexao");
            });
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ ExceptionFlows.class, SkailTestConfiguration.class })
    static class App {

    }

    /** Declares an exception holding a connection object that cannot be serialized. */
    public static class Unrebuildable {

        @SkailFunction
        public String processarPedido(String pedido) {
            return chamarGateway(pedido);
        }

        @SkailCommand
        public String chamarGateway(String pedido) throws GatewayIndisponivelException {
            return "ok";
        }
    }
}
