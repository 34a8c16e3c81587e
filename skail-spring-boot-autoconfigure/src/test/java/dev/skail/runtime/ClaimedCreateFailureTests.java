package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
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
 * A trigger whose claimed create committed but was not acknowledged (a sync that failed, a deadline) answers its
 * caller at once with {@link SkailUnavailableException}: the lease it may hold is given back afterwards, on the
 * worker's poller thread, not while the caller waits (before, a trigger during an outage waited for the store twice:
 * {@code skail.store.request-timeout}, then as long again for the release). The execution that did get created runs
 * once the lease is given back, well before the lease (a minute) would expire.
 */
@SpringBootTest(classes = ClaimedCreateFailureTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
        "skail.worker.lease-duration=60s" })
class ClaimedCreateFailureTests {

    /** Opened by the test once the trigger has answered; the store's release waits for it. */
    static final CountDownLatch releaseMayProceed = new CountDownLatch(1);

    /** Whether the release ran before the test opened {@link #releaseMayProceed} (it waited in vain). */
    static final AtomicBoolean releaseWaitedInVain = new AtomicBoolean();

    static final AtomicInteger releases = new AtomicInteger();

    @Autowired
    SkailClient client;

    @Autowired
    Pedidos pedidos;

    @Autowired
    SkailWorker worker;

    @Test
    void theCallerIsAnsweredAtOnceAndTheCreatedExecutionRunsOnceItsLeaseIsGivenBack() {
        // the trigger must find a free slot and create its execution claimed: once the worker's first claim (at its
        // start) has ended, as in TriggerDuringPollTests; before it, the trigger created the execution unclaimed and
        // the failing claimed create never ran (seen once in a clean-clone run)
        // with no poll left asked for, and a wait for a claim that a loaded machine does not outlast
        QuietWorker.await(this.worker, Duration.ofSeconds(10));
        OffsetDateTime prazo = OffsetDateTime.parse("2026-12-24T18:00:00-03:00");
        assertThatExceptionOfType(SkailUnavailableException.class)
            .isThrownBy(() -> this.client.trigger("pedido-7", Pedidos.class,
                    (p) -> p.processarPedido("pedido-7", new BigDecimal("1250.90"), prazo)))
            .withMessageContaining("sync failed (test)");
        // answered while the release still waits: the caller did not wait for it
        assertThat(releases.get()).isZero();
        releaseMayProceed.countDown();

        // the create's commit held: once its lease is back, the worker runs it (a poll every hour, a lease of a minute)
        SkailExecution done = Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.client.find("pedido-7").orElseThrow(), (e) -> e.status() == ExecutionStatus.COMPLETED);
        assertThat(releaseWaitedInVain).isFalse();
        assertThat(releases.get()).isEqualTo(1);
        assertThat(done.result()).isEqualTo("\"1250.90 até 2026-12-24T18:00-03:00\"");
        assertThat(this.pedidos.runs.get()).isEqualTo(1);
        assertThat(this.client.history("pedido-7").steps()).extracting(SkailStep::name).containsExactly("cobrarCartao");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedidos.class)
    static class App {

        /**
         * The store: its first claimed create commits, then fails as a sync that failed would (the caller is not
         * told the commit held); a release waits until the test lets it go on.
         */
        @Bean
        static BeanPostProcessor unacknowledgedCreate() {
            AtomicBoolean failed = new AtomicBoolean();
            return StoreInterception.around((call) -> {
                if (call.name().equals("release")) {
                    if (!releaseMayProceed.await(5, TimeUnit.SECONDS)) {
                        releaseWaitedInVain.set(true);
                    }
                    releases.incrementAndGet();
                    // the wait stood for a slow store: the release itself is not cut short by the time it took
                    return call.proceedWithoutDeadline();
                }
                Object result = call.proceed();
                if (call.name().equals("createClaimed") && failed.compareAndSet(false, true)) {
                    throw new StoreUnavailableException("skail store could not create execution: sync failed (test)",
                            new java.io.IOException("sync failed (test)"));
                }
                return result;
            });
        }
    }

    public static class Pedidos {

        final AtomicInteger runs = new AtomicInteger();

        @SkailFunction
        public String processarPedido(String pedido, BigDecimal valor, OffsetDateTime prazo) {
            return cobrarCartao(pedido, valor, prazo);
        }

        @SkailCommand
        public String cobrarCartao(String pedido, BigDecimal valor, OffsetDateTime prazo) {
            this.runs.incrementAndGet();
            return valor.toPlainString() + " até " + prazo;
        }
    }
}
