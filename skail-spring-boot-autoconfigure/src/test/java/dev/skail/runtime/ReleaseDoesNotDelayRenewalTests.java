package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailHandle;
import dev.skail.SkailStep;
import dev.skail.SkailUnavailableException;
import dev.skail.platform.StoreUnavailableException;
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
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The lease of a trigger whose claimed create failed is given back off the lease thread: a release that waits on a
 * slow store never holds up the renewals of the executions running (here a lease of 3 s, renewed every second, while
 * the release waits for 4 s). Before, releases ran on the lease thread, and a lease this short would have lapsed.
 */
@SpringBootTest(classes = ReleaseDoesNotDelayRenewalTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
        // the trigger's wait for a running claim is bounded by the request timeout too (5 s by default)
        "skail.worker.lease-duration=3s", "skail.store.request-timeout=30s" })
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
        // a trigger that comes while a claim runs waits for it (the product waits 50 ms, which a loaded machine may
        // exceed): the second trigger below must be handed its execution, so that its claimed create is the one that
        // fails
        this.worker.claimWait(Duration.ofSeconds(10));
        SkailHandle<BigDecimal> running = this.client.trigger("pedido-1", Pedidos.class,
                (p) -> p.processarPedido("pedido-1", new BigDecimal("80.50")));
        assertThat(this.pedidos.charging.await(10, TimeUnit.SECONDS)).isTrue();

        // a claim that failed or filled its slots leaves the next trigger to the store's queue (drained false): the
        // last claim before the second trigger found nothing waiting
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            this.worker.nudge();
            return this.worker.drained();
        });
        // a second trigger's claimed create commits, then fails as a failed sync would: its lease is given back, and
        // that release waits on the store
        assertThatExceptionOfType(SkailUnavailableException.class)
            .as(() -> "the second trigger was not handed its execution (worker busy " + this.worker.busy()
                    + ", drained " + this.worker.drained() + ")")
            .isThrownBy(() -> this.client.trigger("pedido-2",
                Pedidos.class, (p) -> p.processarPedido("pedido-2", new BigDecimal("19.99"))));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> releaseWaitingSince.get() != 0);

        // the running execution's lease (3 s) is renewed every second meanwhile
        Awaitility.await().atMost(Duration.ofMillis(3_500)).until(() -> renewalsWhileReleaseWaits.get() >= 2);
        releaseMayProceed.countDown();
        this.pedidos.mayCharge.countDown();

        assertThat(running.result(Duration.ofSeconds(10))).isEqualByComparingTo("80.50");
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(
                () -> this.client.find("pedido-2").orElseThrow().status() == ExecutionStatus.COMPLETED);
        assertThat(this.pedidos.runs("pedido-1")).isEqualTo(1);
        assertThat(this.pedidos.runs("pedido-2")).isEqualTo(1);
        assertThat(this.client.history("pedido-1").steps()).extracting(SkailStep::name).containsExactly("cobrarCartao");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedidos.class)
    static class App {

        @Bean
        static BeanPostProcessor slowRelease() {
            AtomicBoolean failed = new AtomicBoolean();
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
                if (call.name().equals("createClaimed")
                        && ((dev.skail.platform.ExecutionRow) call.args()[0]).taskId().equals("pedido-2")
                        && failed.compareAndSet(false, true)) {
                    throw new StoreUnavailableException("skail store could not create execution: sync failed (test)",
                            new java.io.IOException("sync failed (test)"));
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
