package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailHandle;
import dev.skail.SkailStep;
import dev.skail.platform.Lease;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * A trigger while the worker polls. The poll holds the free slots while it claims (so that the worker never runs more
 * than its concurrency); a trigger meanwhile waits for the claim to end. On an idle runtime the claim finds nothing and
 * the trigger's execution runs at once (before, such a trigger found no slot and left its execution to a later poll:
 * seen as a trigger on an idle runtime answered {@code PENDING}); when the claim found work waiting, that work goes
 * first and the trigger's execution waits its turn, with nothing claimed in vain.
 */
@SpringBootTest(classes = TriggerDuringPollTests.App.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=1h",
        "skail.worker.lease-duration=60s", "skail.worker.concurrency=1" })
class TriggerDuringPollTests {

    /** Armed by a test: the next claim of the store waits for {@link #claimMayProceed}. */
    static volatile boolean claimArmed;

    static volatile CountDownLatch claimEntered = new CountDownLatch(1);

    static volatile CountDownLatch claimMayProceed = new CountDownLatch(1);

    static final Map<String, AtomicInteger> releases = new ConcurrentHashMap<>();

    /** The claims the worker made of the store. */
    static final AtomicInteger claims = new AtomicInteger();

    @Autowired
    SkailClient client;

    @Autowired
    SkailWorker worker;

    @Autowired
    Pedidos pedidos;

    @BeforeEach
    void idleRuntimeAndAClaimThatWaits() {
        claimArmed = false;
        claimEntered = new CountDownLatch(1);
        claimMayProceed = new CountDownLatch(1);
        // long enough for the test to see the trigger wait (the product's wait is 50 ms); the claim a test holds is the
        // one it asks for
        QuietWorker.await(this.worker, Duration.ofSeconds(10));
    }

    @AfterEach
    void letAnyClaimGo() {
        claimArmed = false;
        claimMayProceed.countDown();
    }

    @Test
    void onAnIdleRuntimeATriggerDuringAClaimRunsAtOnce() throws Exception {
        claimArmed = true;
        this.worker.nudge();
        assertThat(claimEntered.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<SkailHandle<BigDecimal>> triggered = new CompletableFuture<>();
        Thread caller = trigger("pedido-1", new BigDecimal("150.00"), triggered);
        // the trigger waits for the claim, which holds the one free slot
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> waitsForTheClaim(caller) || triggered.isDone());
        assertThat(triggered).as("answered without waiting for the claim").isNotDone();
        claimMayProceed.countDown();

        SkailHandle<BigDecimal> handle = triggered.get(10, TimeUnit.SECONDS);
        // the claim found nothing: the trigger took the slot, created its execution claimed, and it runs at once
        assertThat(handle.execution().status()).isEqualTo(ExecutionStatus.RUNNING);
        this.pedidos.mayCharge("pedido-1").countDown();
        assertThat(handle.result(Duration.ofSeconds(10))).isEqualByComparingTo("150.00").extracting(BigDecimal::scale)
            .isEqualTo(2);
        assertThat(this.pedidos.runs("pedido-1")).isEqualTo(1);
        assertThat(this.client.history("pedido-1").steps()).extracting(SkailStep::name).containsExactly("cobrarCartao");
    }

    @Test
    void aPollAskedForWhileATriggerWaitsForAClaimLeavesTheTriggerItsSlot() throws Exception {
        claimArmed = true;
        this.worker.nudge();
        assertThat(claimEntered.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<SkailHandle<BigDecimal>> triggered = new CompletableFuture<>();
        Thread caller = trigger("pedido-2", new BigDecimal("250.75"), triggered);
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> waitsForTheClaim(caller) || triggered.isDone());
        assertThat(triggered).as("answered without waiting for the claim").isNotDone();

        // another poll is asked for meanwhile (an ended delivery, another instance's notification on PostgreSQL): the
        // poller runs it as soon as the held claim ends, before the trigger's thread is scheduled; its claim would wait
        // too, holding the one slot, had it taken it
        this.worker.nudge();
        CountDownLatch held = claimMayProceed;
        claimMayProceed = new CountDownLatch(1);
        claimArmed = true;
        held.countDown();

        SkailHandle<BigDecimal> handle = triggered.get(10, TimeUnit.SECONDS);
        // the trigger took the slot the claim gave back, and its execution runs at once
        assertThat(handle.execution().status()).isEqualTo(ExecutionStatus.RUNNING);
        this.pedidos.mayCharge("pedido-2").countDown();
        assertThat(handle.result(Duration.ofSeconds(10))).isEqualByComparingTo("250.75").extracting(BigDecimal::scale)
            .isEqualTo(2);
        assertThat(this.pedidos.runs("pedido-2")).isEqualTo(1);
        assertThat(this.client.history("pedido-2").steps()).extracting(SkailStep::name).containsExactly("cobrarCartao");
    }

    @Test
    void workTheClaimFindsGoesBeforeATriggerDuringIt() throws Exception {
        SkailHandle<BigDecimal> a = this.client.trigger("pedido-a", Pedidos.class,
                (p) -> p.processarPedido("pedido-a", new BigDecimal("100.10")));
        assertThat(this.pedidos.started("pedido-a").await(10, TimeUnit.SECONDS)).isTrue();
        // the one slot is taken: this one waits in the store
        SkailHandle<BigDecimal> b = this.client.trigger("pedido-b", Pedidos.class,
                (p) -> p.processarPedido("pedido-b", new BigDecimal("200.20")));
        assertThat(b.execution().status()).isEqualTo(ExecutionStatus.PENDING);

        // a ends; the poll its end asks for claims b, and that claim waits
        claimArmed = true;
        this.pedidos.mayCharge("pedido-a").countDown();
        assertThat(a.result(Duration.ofSeconds(10))).isEqualByComparingTo("100.10");
        assertThat(claimEntered.await(10, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<SkailHandle<BigDecimal>> triggered = new CompletableFuture<>();
        Thread caller = trigger("pedido-c", new BigDecimal("300.30"), triggered);
        // whether it waits for the claim or not (the wait is the idle case's, above), its execution must wait its turn
        Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> waitsForTheClaim(caller) || triggered.isDone());
        claimMayProceed.countDown();

        // b, claimed, takes the slot; c waits its turn in the store, and nothing claimed was given back
        SkailHandle<BigDecimal> c = triggered.get(10, TimeUnit.SECONDS);
        assertThat(c.execution().status()).isEqualTo(ExecutionStatus.PENDING);
        assertThat(this.pedidos.started("pedido-b").await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(releases).doesNotContainKey("pedido-b");
        this.pedidos.mayCharge("pedido-b").countDown();
        assertThat(b.result(Duration.ofSeconds(10))).isEqualByComparingTo("200.20");
        this.pedidos.mayCharge("pedido-c").countDown();
        assertThat(c.result(Duration.ofSeconds(10))).isEqualByComparingTo("300.30");

        assertThat(this.pedidos.mostAtOnce.get()).isEqualTo(1);
        for (String pedido : List.of("pedido-a", "pedido-b", "pedido-c")) {
            assertThat(this.pedidos.runs(pedido)).as(pedido).isEqualTo(1);
            assertThat(this.client.history(pedido).steps()).extracting(SkailStep::name).containsExactly("cobrarCartao");
        }
    }

    @Test
    void aTriggerWaitsForAClaimOnlySoLong() throws Exception {
        this.worker.claimWait(Duration.ofMillis(100));
        claimArmed = true;
        this.worker.nudge();
        assertThat(claimEntered.await(10, TimeUnit.SECONDS)).isTrue();

        // the claim still holds the slot after the wait: the trigger answers, its execution waits in the store
        SkailHandle<BigDecimal> handle = this.client.trigger("pedido-9", Pedidos.class,
                (p) -> p.processarPedido("pedido-9", new BigDecimal("99.90")));
        assertThat(claimMayProceed.getCount()).as("the claim is still held").isEqualTo(1);
        assertThat(handle.execution().status()).isEqualTo(ExecutionStatus.PENDING);

        // the claim, let go, finds it and runs it
        claimMayProceed.countDown();
        this.pedidos.mayCharge("pedido-9").countDown();
        assertThat(handle.result(Duration.ofSeconds(10))).isEqualByComparingTo("99.90");
        assertThat(this.pedidos.runs("pedido-9")).isEqualTo(1);
    }

    @Test
    void anExecutionThatEndsAsksForNoClaimSoTheNextTriggerRunsAtOnce() throws Exception {
        // a poll with every slot free: no mark of a poll that found none is left from a test before
        this.worker.nudge();
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(this.worker::quiet);
        int before = claims.get();
        for (int i = 1; i <= 3; i++) {
            // its result is told before its delivery gives the one slot back: the next trigger comes once it has
            // (waiting without asking for a poll, as QuietWorker would)
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(this.worker::quiet);
            String pedido = "pedido-seq-" + i;
            BigDecimal valor = new BigDecimal("10.5" + i);
            SkailHandle<BigDecimal> handle = this.client.trigger(pedido, Pedidos.class,
                    (p) -> p.processarPedido(pedido, valor));
            // the slot was free: created claimed, running here at once
            assertThat(handle.execution().status()).isEqualTo(ExecutionStatus.RUNNING);
            this.pedidos.mayCharge(pedido).countDown();
            assertThat(handle.result(Duration.ofSeconds(10))).isEqualByComparingTo(valor)
                .extracting(BigDecimal::scale)
                .isEqualTo(2);
        }
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(this.worker::quiet);

        // nothing else was due: no end asked the store for work (each used to, and a trigger then waited for that
        // claim to give the slot back); the three ran once each
        assertThat(claims.get() - before).isZero();
        for (int i = 1; i <= 3; i++) {
            assertThat(this.pedidos.runs("pedido-seq-" + i)).isEqualTo(1);
        }
    }

    /** Triggers an order on a thread of its own, as a caller of the application would. */
    private Thread trigger(String pedido, BigDecimal valor, CompletableFuture<SkailHandle<BigDecimal>> triggered) {
        Thread caller = new Thread(() -> {
            try {
                triggered.complete(this.client.trigger(pedido, Pedidos.class, (p) -> p.processarPedido(pedido, valor)));
            }
            catch (Throwable ex) {
                triggered.completeExceptionally(ex);
            }
        }, "caller-" + pedido);
        caller.start();
        return caller;
    }

    private static boolean waitsForTheClaim(Thread caller) {
        return caller.getState() == Thread.State.TIMED_WAITING && Arrays.stream(caller.getStackTrace())
            .anyMatch((frame) -> frame.getClassName().equals(SkailWorker.class.getName())
                    && frame.getMethodName().equals("reserve"));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Pedidos.class)
    static class App {

        @Bean
        static BeanPostProcessor claimThatWaits() {
            return StoreInterception.around((call) -> {
                if (call.name().startsWith("claimDue")) {
                    claims.incrementAndGet();
                }
                if (call.name().startsWith("claimDue") && claimArmed) {
                    claimArmed = false;
                    claimEntered.countDown();
                    claimMayProceed.await(10, TimeUnit.SECONDS);
                }
                if (call.name().equals("release")) {
                    releases.computeIfAbsent(((Lease) call.args()[0]).taskId(), (k) -> new AtomicInteger())
                        .incrementAndGet();
                }
                return call.proceed();
            });
        }
    }

    public static class Pedidos {

        private final Map<String, CountDownLatch> started = new ConcurrentHashMap<>();

        private final Map<String, CountDownLatch> mayCharge = new ConcurrentHashMap<>();

        private final RunCounts runs = new RunCounts();

        private final AtomicInteger atOnce = new AtomicInteger();

        final AtomicInteger mostAtOnce = new AtomicInteger();

        CountDownLatch started(String pedido) {
            return this.started.computeIfAbsent(pedido, (k) -> new CountDownLatch(1));
        }

        CountDownLatch mayCharge(String pedido) {
            return this.mayCharge.computeIfAbsent(pedido, (k) -> new CountDownLatch(1));
        }

        int runs(String pedido) {
            return this.runs.of(pedido);
        }

        @SkailFunction
        public BigDecimal processarPedido(String pedido, BigDecimal valor) {
            return cobrarCartao(pedido, valor);
        }

        @SkailCommand
        public BigDecimal cobrarCartao(String pedido, BigDecimal valor) {
            this.mostAtOnce.accumulateAndGet(this.atOnce.incrementAndGet(), Math::max);
            try {
                this.runs.ran(pedido);
                started(pedido).countDown();
                if (!mayCharge(pedido).await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never let " + pedido + " be charged");
                }
                return valor;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
            finally {
                this.atOnce.decrementAndGet();
            }
        }
    }
}
