package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailHandle;
import dev.skail.SkailStep;
import dev.skail.platform.Lease;
import org.awaitility.Awaitility;
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
 * A lease given back (as the worker gives back the lease of a trigger whose claimed create failed, see
 * {@code ClaimedCreateFailureTests}) is given back off the lease thread: a release that waits on a slow store never
 * holds up the renewals of the executions running (here a lease of 3 s, renewed every second, while the release waits
 * for 4 s). Before, releases ran on the lease thread, and a lease this short would have lapsed. The release is asked
 * for directly: which trigger is handed its execution depends on the claims running as it comes, which this test
 * does not control (it failed twice in CI on PostgreSQL when it went through a trigger).
 */
@SpringBootTest(classes = ReleaseDoesNotDelayRenewalTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
        "skail.worker.lease-duration=3s" })
class ReleaseDoesNotDelayRenewalTests {

    /** Opened by the test; the store's release waits for it (4 s at most). */
    static final CountDownLatch releaseMayProceed = new CountDownLatch(1);

    static final AtomicLong releaseWaitingSince = new AtomicLong();

    /** Renewals that held a lease, counted from when the release began to wait. */
    static final AtomicInteger renewalsWhileReleaseWaits = new AtomicInteger();

    @Autowired
    SkailClient client;

    @Autowired
    Pedidos pedidos;

    @Autowired
    SkailWorker worker;

    @Test
    void renewalsGoOnWhileAReleaseWaitsForTheStore() throws Exception {
        SkailHandle<BigDecimal> running = this.client.trigger("pedido-1", Pedidos.class,
                (p) -> p.processarPedido("pedido-1", new BigDecimal("80.50")));
        assertThat(this.pedidos.charging.await(10, TimeUnit.SECONDS)).isTrue();

        // a lease of this instance given back while the store is slow: the release waits on the store
        this.worker.releaseSoon(new Lease("pedido-2", "another-runner", UUID.randomUUID().toString()));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> releaseWaitingSince.get() != 0);

        // the running execution's lease (3 s) is renewed every second meanwhile
        Awaitility.await().atMost(Duration.ofMillis(3_500)).until(() -> renewalsWhileReleaseWaits.get() >= 2);
        releaseMayProceed.countDown();
        this.pedidos.mayCharge.countDown();

        assertThat(running.result(Duration.ofSeconds(10))).isEqualByComparingTo("80.50");
        assertThat(this.pedidos.runs("pedido-1")).isEqualTo(1);
        assertThat(this.client.history("pedido-1").steps()).extracting(SkailStep::name).containsExactly("cobrarCartao");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedidos.class)
    static class App {

        @Bean
        static BeanPostProcessor slowRelease() {
            return StoreInterception.around((call) -> {
                if (call.name().equals("release")) {
                    releaseWaitingSince.compareAndSet(0, System.nanoTime());
                    releaseMayProceed.await(4, TimeUnit.SECONDS);
                    // the wait stood for a slow store; the release itself is not to be cut short by the time it took
                    return call.proceedWithoutDeadline();
                }
                Object result = call.proceed();
                if (call.name().equals("renew") && releaseWaitingSince.get() != 0 && releaseMayProceed.getCount() > 0
                        && ((List<?>) result).isEmpty()) {
                    // none of the leases renewed was lost
                    renewalsWhileReleaseWaits.incrementAndGet();
                }
                return result;
            });
        }
    }

    public static class Pedidos {

        final CountDownLatch charging = new CountDownLatch(1);

        final CountDownLatch mayCharge = new CountDownLatch(1);

        private final RunCounts runs = new RunCounts();

        int runs(String pedido) {
            return this.runs.of(pedido);
        }

        @SkailFunction
        public BigDecimal processarPedido(String pedido, BigDecimal valor) {
            return cobrarCartao(pedido, valor);
        }

        @SkailCommand
        public BigDecimal cobrarCartao(String pedido, BigDecimal valor) {
            this.runs.ran(pedido);
            if (pedido.equals("pedido-1")) {
                this.charging.countDown();
                try {
                    this.mayCharge.await(10, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return valor;
        }
    }
}
