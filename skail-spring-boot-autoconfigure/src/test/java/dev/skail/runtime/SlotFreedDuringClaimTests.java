package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailHandle;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A slot freed while the worker claims, by an execution that simply ends: that end asks for no claim of its own (no
 * work was known to wait when it read the worker's marks), so the claim, once it finds it took all it asked for, claims
 * again for the slot. Without that, the work left waiting would wait for the next end or the next poll (an hour here).
 */
@SpringBootTest(classes = SlotFreedDuringClaimTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
        "skail.worker.lease-duration=60s", "skail.worker.concurrency=2", "skail.worker.prefetch=0" })
class SlotFreedDuringClaimTests {

    static volatile boolean claimArmed;

    static final CountDownLatch claimEntered = new CountDownLatch(1);

    static final CountDownLatch claimMayProceed = new CountDownLatch(1);

    @Autowired
    SkailClient client;

    @Autowired
    SkailWorker worker;

    @Autowired
    TriggerDuringPollTests.Pedidos pedidos;

    @AfterEach
    void letAnyClaimGo() {
        claimArmed = false;
        claimMayProceed.countDown();
    }

    @Test
    void aSlotFreedWhileAClaimFillsItsSlotsIsClaimedForAtOnce() throws Exception {
        QuietWorker.await(this.worker, Duration.ofSeconds(10));
        SkailHandle<BigDecimal> a = trigger("pedido-a", "10.10");
        SkailHandle<BigDecimal> b = trigger("pedido-b", "20.20");
        assertThat(this.pedidos.started("pedido-a").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(this.pedidos.started("pedido-b").await(10, TimeUnit.SECONDS)).isTrue();
        // both slots taken: these two wait in the store
        SkailHandle<BigDecimal> c = trigger("pedido-c", "30.30");
        SkailHandle<BigDecimal> d = trigger("pedido-d", "40.40");
        assertThat(c.execution().status()).isEqualTo(ExecutionStatus.PENDING);
        assertThat(d.execution().status()).isEqualTo(ExecutionStatus.PENDING);

        // a ends: its freed slot is claimed for, and that claim is held
        claimArmed = true;
        this.pedidos.mayCharge("pedido-a").countDown();
        assertThat(a.result(Duration.ofSeconds(10))).isEqualByComparingTo("10.10");
        assertThat(claimEntered.await(10, TimeUnit.SECONDS)).isTrue();
        // b ends during the claim, which holds the other slot
        this.pedidos.mayCharge("pedido-b").countDown();
        assertThat(b.result(Duration.ofSeconds(10))).isEqualByComparingTo("20.20");
        // b's slot given back: the one left is the claim's
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(this.worker::slotsTaken, (n) -> n == 1);
        claimMayProceed.countDown();

        // the claim takes one of them; the slot b freed takes the other at once, while the first still runs
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.pedidos.started("pedido-c").getCount() == 0
                    && this.pedidos.started("pedido-d").getCount() == 0);
        // never more than the worker's two at once (a and b had already run together)
        assertThat(this.pedidos.mostAtOnce.get()).isEqualTo(2);
        this.pedidos.mayCharge("pedido-c").countDown();
        this.pedidos.mayCharge("pedido-d").countDown();
        assertThat(c.result(Duration.ofSeconds(10))).isEqualByComparingTo("30.30");
        assertThat(d.result(Duration.ofSeconds(10))).isEqualByComparingTo("40.40");
        for (String pedido : new String[] { "pedido-a", "pedido-b", "pedido-c", "pedido-d" }) {
            assertThat(this.pedidos.runs(pedido)).as(pedido).isEqualTo(1);
        }
    }

    private SkailHandle<BigDecimal> trigger(String pedido, String valor) {
        return this.client.trigger(pedido, TriggerDuringPollTests.Pedidos.class,
                (p) -> p.processarPedido(pedido, new BigDecimal(valor)));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(TriggerDuringPollTests.Pedidos.class)
    static class App {

        @Bean
        static BeanPostProcessor claimThatWaits() {
            return StoreInterception.around((call) -> {
                if (call.name().startsWith("claimDue") && claimArmed) {
                    claimArmed = false;
                    claimEntered.countDown();
                    claimMayProceed.await(10, TimeUnit.SECONDS);
                }
                return call.proceed();
            });
        }
    }
}
