package dev.skail.test.loja;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTest;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @SkailTest} drives the application's time: a 24-hour delay passes when the virtual clock is advanced. */
@SkailTest
class VirtualTimeTests {

    @Autowired
    SkailClient skail;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    Clock applicationClock;

    @Autowired
    Efeitos efeitos;

    @Test
    void theCardIsChargedOnlyWhenTheClockHasBeenAdvancedTwentyFourHours() {
        UUID pedidoId = UUID.fromString("8d7e4a36-1f0b-4c55-9a63-2f1c0c9a7b11");
        this.skail.trigger("pedido-1", Pedidos.class, (p) -> p.processarPedido(pedidoId, new BigDecimal("150.00")));

        SkailExecution waiting = this.await.status("pedido-1", ExecutionStatus.WAITING);
        assertThat(this.efeitos.de(pedidoId)).containsExactly("reservarEstoque");

        this.clock.advance(Duration.ofHours(23));
        assertThat(this.skail.find("pedido-1")).get().extracting(SkailExecution::status)
            .isEqualTo(ExecutionStatus.WAITING);
        this.clock.advance(Duration.ofHours(1));

        SkailExecution done = this.await.status("pedido-1", ExecutionStatus.COMPLETED);
        assertThat(done.result(String.class)).isEqualTo("CONFIRMADO");
        assertThat(this.efeitos.de(pedidoId)).containsExactly("reservarEstoque", "cobrarCartao 150.00",
                "confirmarPedido");
        assertThat(this.skail.history("pedido-1").steps()).extracting(SkailStep::name)
            .containsExactly("reservarEstoque", "delay", "cobrarCartao", "confirmarPedido");
        assertThat(Duration.between(waiting.createdAt(), done.updatedAt())).isGreaterThanOrEqualTo(Duration.ofHours(24));
    }

    @Test
    void theVirtualClockIsTheApplicationsClock() {
        assertThat(this.applicationClock).isSameAs(this.clock);
    }
}
