package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
import dev.skail.SkailHandle;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.test.VirtualClock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A trigger in a process whose worker has a free slot creates the execution claimed and runs it at once: no poll
 * (the poll interval here is an hour), no claim. A full worker leaves it PENDING for the next free slot.
 */
@SpringBootTest(classes = LocalStartTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
        // the trigger's wait for a running claim is bounded by the request timeout too (5 s by default)
        "skail.worker.concurrency=1", "skail.store.request-timeout=30s" })
class LocalStartTests {

    @Autowired
    SkailClient client;

    @Autowired
    ExecutionStore store;

    @Autowired
    Pedidos pedidos;

    @Autowired
    VirtualClock clock;

    @Autowired
    SkailWorker worker;

    @org.junit.jupiter.api.BeforeEach
    void aTriggerDuringAClaimWaitsForIt() {
        // the product waits 50 ms for a claim running as a trigger comes, which a loaded machine may exceed: these
        // tests' triggers must find the free slot whenever there is one (and a test before may have left a claim that
        // filled the slot as the last one)
        QuietWorker.await(this.worker, Duration.ofSeconds(10));
    }

    @Test
    void aFreeSlotRunsTheTriggerAtOnceAndAFullWorkerLeavesTheNextPendingUntilTheSlotIsFree() throws Exception {
        SkailHandle<BigDecimal> first = this.client.trigger("pedido-1", Pedidos.class,
                (p) -> p.processarPedido("pedido-1", new BigDecimal("150.00")));
        // the trigger's own transaction claimed it for this instance
        assertThat(first.execution().status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(this.pedidos.started.await(10, TimeUnit.SECONDS)).isTrue();

        SkailHandle<BigDecimal> second = this.client.trigger("pedido-2", Pedidos.class,
                (p) -> p.processarPedido("pedido-2", new BigDecimal("99.90")));
        assertThat(second.execution().status()).isEqualTo(ExecutionStatus.PENDING);
        assertThat(this.pedidos.runs("pedido-2")).isZero();

        this.pedidos.release.countDown();
        // the slot the first frees takes the second: each command ran once
        assertThat(first.result(Duration.ofSeconds(10))).isEqualByComparingTo("150.00");
        assertThat(second.result(Duration.ofSeconds(10))).isEqualByComparingTo("99.90");
        assertThat(this.pedidos.runs("pedido-1")).isEqualTo(1);
        assertThat(this.pedidos.runs("pedido-2")).isEqualTo(1);
        assertThat(this.client.history("pedido-1").steps()).hasSize(1);
    }

    @Test
    void anExecutionCreatedClaimedByAProcessThatDiedIsTakenBackWhenItsLeaseEnds() {
        // another instance created it claimed and died before running it
        Instant now = this.clock.instant();
        Lease lease = new Lease("pedido-3", "dead-instance", java.util.UUID.randomUUID().toString());
        ExecutionStore.Created created = this.store.createClaimed(new dev.skail.platform.ExecutionRow("pedido-3",
                "vendas", "v1.0.0", "processarPedido", "[\"pedido-3\",12.30]", ExecutionStatus.PENDING, null, null, 1,
                0, now.toEpochMilli(), now.toEpochMilli(), now.toEpochMilli(), null), List.of(), lease,
                now.plusSeconds(30).toEpochMilli());
        assertThat(created.claimed()).isTrue();
        assertThat(this.client.find("pedido-3")).hasValueSatisfying(
                (execution) -> assertThat(execution.status()).isEqualTo(ExecutionStatus.RUNNING));

        this.clock.advance(Duration.ofSeconds(31));
        // the worker's next poll takes it back (the poll interval here is an hour: the test asks for that poll)
        this.worker.nudge();

        SkailExecution done = Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.client.find("pedido-3").orElseThrow(), (e) -> e.status() == ExecutionStatus.COMPLETED);
        assertThat(done.result()).isEqualTo("12.30");
        assertThat(this.pedidos.runs("pedido-3")).isEqualTo(1);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedidos.class)
    static class App {

        @Bean(dev.skail.autoconfigure.SkailAutoConfiguration.CLOCK_BEAN_NAME)
        VirtualClock clock() {
            return new VirtualClock(java.time.Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"),
                    java.time.ZoneOffset.UTC));
        }
    }

    public static class Pedidos {

        final CountDownLatch started = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

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
            if (!pedido.equals("pedido-1")) {
                return valor;
            }
            this.started.countDown();
            try {
                this.release.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return valor;
        }
    }
}
