package dev.skail.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailExecution;
import dev.skail.SkailFunction;
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
 * The worker: redelivery backoff (S18) driven by the injected clock, one thread per execution (S14),
 * and a stop that lets running steps finish.
 */
@SpringBootTest(classes = WorkerTests.WorkerApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.poll-interval=20ms",
        "skail.worker.concurrency=4" })
class WorkerTests {

    @Autowired
    SkailClient client;

    @Autowired
    VirtualClock clock;

    @Autowired
    Flows flows;

    @Test
    void redeliveriesWaitOneThenTwoSecondsOfTheInjectedClock() {
        this.client.trigger("instavel", "backoff-1", "backoff-1");

        SkailExecution afterFirst = awaitRescheduled("backoff-1", 1);
        Instant firstFailure = this.clock.instant();
        assertThat(afterFirst.status()).isEqualTo(ExecutionStatus.PENDING);
        assertThat(afterFirst.nextRunAt()).isEqualTo(firstFailure.plusSeconds(1));
        stillAfterPolls(() -> this.flows.runs("backoff-1") == 1);

        this.clock.advance(Duration.ofSeconds(1));
        SkailExecution afterSecond = awaitRescheduled("backoff-1", 2);
        assertThat(afterSecond.nextRunAt()).isEqualTo(this.clock.instant().plusSeconds(2));
        this.clock.advance(Duration.ofSeconds(1));
        stillAfterPolls(() -> this.flows.runs("backoff-1") == 2);

        this.clock.advance(Duration.ofSeconds(1));
        awaitExecution("backoff-1", (e) -> e.status() == ExecutionStatus.COMPLETED);
        assertThat(this.client.history("backoff-1").steps().get(0).attempts()).extracting(SkailAttempt::backoff)
            .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), null);
    }

    @Test
    void commandWithItsOwnBackoffWaitsItsOwnTime() {
        this.client.trigger("pacienteFunction", "own-backoff", "own-backoff");

        SkailExecution afterFirst = awaitRescheduled("own-backoff", 1);

        assertThat(afterFirst.nextRunAt()).isEqualTo(this.clock.instant().plusSeconds(5));
        this.clock.advance(Duration.ofSeconds(5));
        awaitExecution("own-backoff", (e) -> e.status() == ExecutionStatus.COMPLETED);
    }

    @Test
    void anExecutionIsRunByOneThreadAtATimeWhileExecutionsRunInParallel() {
        for (int i = 0; i < 12; i++) {
            this.client.trigger("paralelo", "parallel-" + i, "parallel-" + i);
        }
        for (int i = 0; i < 12; i++) {
            // each command fails once and is redelivered after a second of the test clock: let time pass
            awaitExecution("parallel-" + i, (e) -> {
                this.clock.advance(Duration.ofSeconds(1));
                return e.status() == ExecutionStatus.COMPLETED;
            });
        }
        assertThat(this.flows.maxInFlightPerTask()).isEqualTo(1);
        // triggers handing executions to free threads while polls claim redeliveries: never more than the concurrency
        assertThat(this.flows.maxInFlightOverall()).isGreaterThan(1).isLessThanOrEqualTo(4);
    }

    @Test
    void stopLetsTheRunningStepFinishAndRecordsIt() throws Exception {
        this.client.trigger("bloqueante", "blocking-1", "blocking-1");
        assertThat(this.flows.blockingStarted.await(20, TimeUnit.SECONDS)).isTrue();

        Thread stopper = new Thread(() -> this.worker.stop());
        stopper.start();
        Awaitility.await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(stopper::isAlive);
        this.flows.releaseBlocking.countDown();
        stopper.join(20_000);

        assertThat(stopper.isAlive()).isFalse();
        assertThat(this.worker.isRunning()).isFalse();
        assertThat(this.client.history("blocking-1").steps()).hasSize(1)
            .allSatisfy((step) -> assertThat(step.status()).isEqualTo("COMPLETED"));
        this.worker.start();
        awaitExecution("blocking-1", (e) -> e.status() == ExecutionStatus.COMPLETED);
    }

    @Autowired
    SkailWorker worker;

    private int attempts(String taskId) {
        var steps = this.client.history(taskId).steps();
        return steps.isEmpty() ? 0 : steps.get(0).attempts().size();
    }

    /**
     * Awaits the execution waiting for a later time after {@code attempts} failed attempts. The execution is read
     * before its history: a read of the execution from before the last failure shows it still due (its next run not
     * after now), so it is read again rather than taken for the rescheduled one.
     */
    private SkailExecution awaitRescheduled(String taskId, int attempts) {
        return awaitExecution(taskId, (e) -> attempts(taskId) == attempts && e.status() == ExecutionStatus.PENDING
                && e.nextRunAt() != null && e.nextRunAt().isAfter(this.clock.instant()));
    }

    private SkailExecution awaitExecution(String taskId, java.util.function.Predicate<SkailExecution> condition) {
        return Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
            .until(() -> this.client.find(taskId).orElse(null), (e) -> e != null && condition.test(e));
    }

    /** Holds while the worker polls several times (the poll interval is 20 ms). */
    private static void stillAfterPolls(java.util.concurrent.Callable<Boolean> condition) {
        Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(condition);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(Flows.class)
    static class WorkerApp {

        @Bean(dev.skail.autoconfigure.SkailAutoConfiguration.CLOCK_BEAN_NAME)
        VirtualClock clock() {
            // time stands still unless the test moves it
            return new VirtualClock(java.time.Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), java.time.ZoneOffset.UTC));
        }
    }

    public static class Flows {

        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

        private final AtomicInteger maxPerTask = new AtomicInteger();

        private final AtomicInteger overall = new AtomicInteger();

        private final AtomicInteger maxOverall = new AtomicInteger();

        final CountDownLatch blockingStarted = new CountDownLatch(1);

        final CountDownLatch releaseBlocking = new CountDownLatch(1);

        int runs(String taskId) {
            return this.runs.getOrDefault(taskId, new AtomicInteger()).get();
        }

        int maxInFlightPerTask() {
            return this.maxPerTask.get();
        }

        int maxInFlightOverall() {
            return this.maxOverall.get();
        }

        @SkailFunction
        public void instavel(String id) {
            falhaDuasVezes(id);
        }

        @SkailCommand
        public void falhaDuasVezes(String id) {
            int run = this.runs.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet();
            if (!id.startsWith("no-fail") && run <= 2) {
                throw new IllegalStateException("unstable " + run);
            }
        }

        @SkailFunction
        public void pacienteFunction(String id) {
            paciente(id);
        }

        @SkailCommand(backoffInitial = "5s")
        public void paciente(String id) {
            if (this.runs.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IllegalStateException("first run fails");
            }
        }

        @SkailFunction
        public void paralelo(String id) throws InterruptedException {
            lento(id, 1);
            lento(id, 2);
        }

        @SkailCommand(retryCount = 3)
        public void lento(String id, int step) throws InterruptedException {
            String taskId = SkailContext.current().taskId();
            int mine = this.inFlight.computeIfAbsent(taskId, (k) -> new AtomicInteger()).incrementAndGet();
            this.maxPerTask.accumulateAndGet(mine, Math::max);
            this.maxOverall.accumulateAndGet(this.overall.incrementAndGet(), Math::max);
            try {
                Thread.sleep(15); // stands for slow I/O, so that deliveries have a chance to overlap
                int run = this.runs.computeIfAbsent(taskId + step, (k) -> new AtomicInteger()).incrementAndGet();
                if (run == 1) {
                    throw new IllegalStateException("first run fails, to cause a redelivery");
                }
            }
            finally {
                this.overall.decrementAndGet();
                this.inFlight.get(taskId).decrementAndGet();
            }
        }

        @SkailFunction
        public void bloqueante(String id) throws InterruptedException {
            esperarLiberacao(id);
        }

        @SkailCommand
        public void esperarLiberacao(String id) throws InterruptedException {
            this.blockingStarted.countDown();
            this.releaseBlocking.await(30, TimeUnit.SECONDS);
        }
    }
}
