package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Claims ahead under a backlog ({@code skail.worker.prefetch}): once a claim has filled every slot it asked for, the
 * next claims also take executions for the threads about to come free. Those wait in the worker's queue, leased
 * (RUNNING in the store), while never more than the concurrency run; stopping gives their leases back, and nothing
 * claimed ahead runs twice or is lost.
 */
@SpringBootTest(classes = WorkerPrefetchTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=20ms",
        "skail.worker.concurrency=2", "skail.worker.prefetch=2" })
class WorkerPrefetchTests {

    private static final int EXECUTIONS = 8;

    @Autowired
    SkailClient client;

    @Autowired
    SkailWorker worker;

    @Autowired
    Cobrancas cobrancas;

    @BeforeEach
    void everyChargeWaits() {
        this.cobrancas.gate.drainPermits();
        this.cobrancas.maxInFlight.set(0);
    }

    @AfterEach
    void letEveryChargeThrough() {
        // a test that failed leaves no charge waiting for the next
        this.cobrancas.gate.release(1_000);
    }

    @Test
    void aBacklogIsClaimedAheadIntoTheQueueWhileNoMoreThanTheConcurrencyRuns() {
        List<String> ids = trigger("ahead");
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> this.cobrancas.inFlight.get() == 2);

        // one charge ends: the claim of its slot fills it (a backlog), and the next claim takes two more ahead
        this.cobrancas.gate.release(1);
        // the claim's commit is seen before the poller hands its deliveries to the queue: all three are awaited
        Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(count(ids, ExecutionStatus.RUNNING)).isEqualTo(4);
            assertThat(this.worker.queued()).isEqualTo(2);
            assertThat(this.worker.busy()).isEqualTo(4);
        });
        // the queue is full: polls claim nothing more while the two charges run
        Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
            .until(() -> count(ids, ExecutionStatus.RUNNING) == 4 && count(ids, ExecutionStatus.PENDING) == 3);
        assertThat(this.cobrancas.inFlight.get()).isEqualTo(2);

        this.cobrancas.gate.release(1_000);
        Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> count(ids, ExecutionStatus.COMPLETED) == EXECUTIONS);
        // the pool's threads bound what runs at once, the queue included
        assertThat(this.cobrancas.maxInFlight.get()).isEqualTo(2);
        assertThat(ids).allSatisfy((id) -> {
            assertThat(this.cobrancas.runs(id)).isEqualTo(1);
            assertThat(this.client.history(id).steps()).singleElement()
                .satisfies((step) -> assertThat(step.status()).isEqualTo("COMPLETED"));
        });
    }

    @Test
    void stoppingGivesBackTheExecutionsClaimedAheadAndAStartRunsThemOnce() throws Exception {
        List<String> ids = trigger("stop");
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> this.cobrancas.inFlight.get() == 2);
        this.cobrancas.gate.release(1);
        // the first charged and ended, two charging (the one the freed thread took has begun too), two claimed ahead
        Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> count(ids, ExecutionStatus.COMPLETED) == 1 && this.cobrancas.inFlight.get() == 2
                    && this.worker.queued() == 2);
        List<String> queued = ids.stream()
            .filter((id) -> this.cobrancas.runs(id) == 0
                    && this.client.find(id).orElseThrow().status() == ExecutionStatus.RUNNING)
            .toList();
        assertThat(queued).hasSize(2);

        Thread stopper = new Thread(() -> this.worker.stop());
        stopper.start();
        // the queue is emptied before the running charges are let through: a freed thread takes nothing from it
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> !this.worker.isRunning() && this.worker.queued() == 0);
        // the two claimed ahead are given back while the running charges still hold the stop up
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queued.stream()
            .allMatch((id) -> this.client.find(id).orElseThrow().status() == ExecutionStatus.PENDING));
        assertThat(this.cobrancas.inFlight.get()).isEqualTo(2);
        assertThat(stopper.isAlive()).isTrue();
        this.cobrancas.gate.release(2);
        stopper.join(20_000);
        assertThat(stopper.isAlive()).isFalse();

        // nothing is left leased by the stopped worker; the four never started did not charge
        assertThat(ids).allSatisfy((id) -> assertThat(this.client.find(id)).get()
            .extracting(SkailExecution::status)
            .isIn(ExecutionStatus.PENDING, ExecutionStatus.COMPLETED));
        // one ended before, two ran while it stopped: the two queued and the three in the store never charged
        assertThat(ids.stream().filter((id) -> this.cobrancas.runs(id) == 0)).hasSize(5);

        this.cobrancas.gate.release(1_000);
        this.worker.start();
        Awaitility.await().atMost(Duration.ofSeconds(20))
            .until(() -> count(ids, ExecutionStatus.COMPLETED) == EXECUTIONS);
        assertThat(ids).allSatisfy((id) -> assertThat(this.cobrancas.runs(id)).isEqualTo(1));
        assertThat(this.cobrancas.maxInFlight.get()).isLessThanOrEqualTo(2);
    }

    private List<String> trigger(String prefix) {
        List<String> ids = IntStream.range(0, EXECUTIONS).mapToObj((i) -> prefix + "-" + i).toList();
        for (String id : ids) {
            this.client.trigger("processarPedido", id, new Pedido(id, new BigDecimal("129.90")));
        }
        return ids;
    }

    private long count(List<String> ids, ExecutionStatus status) {
        return ids.stream()
            .filter((id) -> this.client.find(id).map(SkailExecution::status).orElse(null) == status)
            .count();
    }

    record Pedido(String id, BigDecimal valor) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Cobrancas.class)
    static class App {

    }

    public static class Cobrancas {

        /** A charge waits for a permit: the test decides when each may end. */
        final Semaphore gate = new Semaphore(0);

        final AtomicInteger inFlight = new AtomicInteger();

        final AtomicInteger maxInFlight = new AtomicInteger();

        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        int runs(String id) {
            return this.runs.getOrDefault(id, new AtomicInteger()).get();
        }

        @SkailFunction
        public void processarPedido(Pedido pedido) throws InterruptedException {
            cobrarCartao(pedido.id(), pedido.valor());
        }

        @SkailCommand
        public void cobrarCartao(String id, BigDecimal valor) throws InterruptedException {
            this.runs.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet();
            this.maxInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
            try {
                if (!this.gate.tryAcquire(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let the charge of " + valor + " through");
                }
            }
            finally {
                this.inFlight.decrementAndGet();
            }
        }
    }
}
