package dev.skail.time;

import java.time.Duration;
import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailConflictException;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailStep;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** S6 delays, S7 events, S8 parallel steps, S9 children, recorded helpers, on virtual time. */
@SpringBootTest(classes = TimeAndEventsTests.TimeApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=1h" })
class TimeAndEventsTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    VirtualClock clock;

    @Autowired
    TimeFlows flows;

    @Test
    void delayHibernatesUntilDueThenTheFunctionGoesOnWithoutRunningEarlierCommandsAgain() {
        this.client.trigger("reservarEsperarCobrar", "delay-1", "delay-1");

        SkailExecution waiting = this.await.status("delay-1", ExecutionStatus.WAITING);
        List<SkailStep> steps = this.client.history("delay-1").steps();
        assertThat(steps).extracting(SkailStep::kind).containsExactly("COMMAND", "DELAY");
        assertThat(steps.get(1).status()).isEqualTo("PENDING");
        assertThat(waiting.nextRunAt()).isEqualTo(steps.get(1).startedAt().plus(Duration.ofHours(24)));
        this.clock.advance(Duration.ofHours(23));
        assertThat(this.client.find("delay-1").orElseThrow().status()).isEqualTo(ExecutionStatus.WAITING);

        // the poll interval is an hour: advancing the virtual clock is what wakes the worker
        this.clock.advance(Duration.ofHours(1));

        SkailExecution done = this.await.status("delay-1", ExecutionStatus.COMPLETED);
        assertThat(done.result(String.class)).isEqualTo("charged");
        assertThat(this.flows.runs("delay-1/reservar")).isEqualTo(1);
        assertThat(this.flows.runs("delay-1/cobrar")).isEqualTo(1);
        assertThat(this.client.history("delay-1").steps()).extracting(SkailStep::status)
            .containsExactly("COMPLETED", "COMPLETED", "COMPLETED");
    }

    @Test
    void eventFiredWhileTheFunctionWaitsIsDeliveredAndRecorded() {
        this.client.trigger("aprovar", "event-1", "event-1");
        this.await.status("event-1", ExecutionStatus.WAITING);

        this.client.fire("event-1", "aprovacao", new TimeFlows.Aprovacao("maria", true));

        SkailExecution done = this.await.status("event-1", ExecutionStatus.COMPLETED);
        assertThat(done.result(String.class)).isEqualTo("maria:true");
        SkailStep wait = this.client.history("event-1").steps().get(1);
        assertThat(wait.kind()).isEqualTo("EVENT");
        assertThat(wait.name()).isEqualTo("aprovacao");
        assertThat(wait.result(java.util.Map.class).get("payload")).isEqualTo(java.util.Map.of("aprovador", "maria", "aprovado", true));
        assertThat(this.flows.runs("event-1/reservar")).isEqualTo(1);
    }

    @Test
    void eventFiredBeforeTheFunctionWaitsIsKept() {
        this.client.trigger("colher", "event-early", "event-early");
        this.client.fire("event-early", "item", "first");
        this.client.fire("event-early", "item", "second");
        this.client.fire("event-early", "item", "third");

        SkailExecution done = this.await.status("event-early", ExecutionStatus.COMPLETED);

        assertThat(done.result()).isEqualTo("[\"first\",\"second\",\"third\"]");
    }

    @Test
    void eventsOfOneNameAreConsumedInArrivalOrderAcrossHibernations() {
        this.client.trigger("colher", "event-order", "event-order");
        this.await.status("event-order", ExecutionStatus.WAITING);
        this.client.fire("event-order", "item", "a");
        this.await.until("event-order", (e) -> waits("event-order") == 2 && e.status() == ExecutionStatus.WAITING,
                "the second wait");
        this.client.fire("event-order", "item", "b");
        this.client.fire("event-order", "item", "c");

        assertThat(this.await.status("event-order", ExecutionStatus.COMPLETED).result())
            .isEqualTo("[\"a\",\"b\",\"c\"]");
    }

    @Test
    void eventRepeatedWithTheSameIdempotencyKeyIsKeptOnce() {
        this.client.trigger("colher", "event-dedupe", "event-dedupe");

        this.runtime.fire("vendas", "v1.0.0", "event-dedupe", "item", "\"a\"", "key-a");
        this.runtime.fire("vendas", "v1.0.0", "event-dedupe", "item", "\"a\"", "key-a");
        this.runtime.fire("vendas", "v1.0.0", "event-dedupe", "item", "\"b\"", "key-b");
        this.client.fire("event-dedupe", "item", "c");

        assertThat(this.await.status("event-dedupe", ExecutionStatus.COMPLETED).result())
            .isEqualTo("[\"a\",\"b\",\"c\"]");
    }

    @Test
    void eventFiredFromJavaWithAnIdempotencyKeyIsKeptOnceWhenRepeated() {
        this.client.trigger("colher", "event-dedupe-java", "event-dedupe-java");

        // a caller that retries after a 503, or a broker that redelivers, repeats the key
        this.client.fire("event-dedupe-java", "item", "a", "pagamento-7f3c");
        this.client.fire("event-dedupe-java", "item", "a", "pagamento-7f3c");
        this.client.fire("event-dedupe-java", "item", "b", "pagamento-9d21");
        assertThatExceptionOfType(SkailInvalidRequestException.class)
            .isThrownBy(() -> this.client.fire("event-dedupe-java", "item", "x", " "))
            .withMessageContaining("idempotency key");
        // a key the store would keep as another (half a surrogate pair has no UTF-8 form)
        assertThatExceptionOfType(SkailInvalidRequestException.class)
            .isThrownBy(() -> this.client.fire("event-dedupe-java", "item", "x", "pagamento-\uD83D"))
            .withMessageContaining("half a surrogate pair at index 10");
        assertThatExceptionOfType(SkailInvalidRequestException.class)
            .isThrownBy(() -> this.client.fire("event-dedupe-java", "item\uDE00", "x"))
            .withMessageContaining("Invalid event name: half a surrogate pair at index 4");
        this.client.fire("event-dedupe-java", "item", "c");

        assertThat(this.await.status("event-dedupe-java", ExecutionStatus.COMPLETED).result())
            .isEqualTo("[\"a\",\"b\",\"c\"]");
    }

    @Autowired
    dev.skail.runtime.SkailRuntime runtime;

    @Test
    void waitWithTimeoutIsEmptyWhenTheTimePassesFirst() {
        this.client.trigger("aprovarComPrazo", "event-timeout", "event-timeout");
        this.await.status("event-timeout", ExecutionStatus.WAITING);

        this.clock.advance(Duration.ofDays(7));

        assertThat(this.await.status("event-timeout", ExecutionStatus.COMPLETED).result(String.class))
            .isEqualTo("expired");
    }

    @Test
    void waitWithTimeoutReturnsTheEventWhenItComesInTime() {
        this.client.trigger("aprovarComPrazo", "event-in-time", "event-in-time");
        this.await.status("event-in-time", ExecutionStatus.WAITING);
        this.clock.advance(Duration.ofDays(6));

        this.client.fire("event-in-time", "aprovacao", new TimeFlows.Aprovacao("joao", true));

        assertThat(this.await.status("event-in-time", ExecutionStatus.COMPLETED).result(String.class))
            .isEqualTo("approved by joao");
    }

    @Test
    void firingAtAnUnknownOrEndedExecutionIsRefused() {
        assertThatExceptionOfType(SkailNotFoundException.class)
            .isThrownBy(() -> this.client.fire("nobody", "aprovacao", null));
        this.client.trigger("aprovar", "event-ended", "event-ended");
        this.await.status("event-ended", ExecutionStatus.WAITING);
        this.client.fire("event-ended", "aprovacao", new TimeFlows.Aprovacao("ana", false));
        this.await.status("event-ended", ExecutionStatus.COMPLETED);

        assertThatExceptionOfType(SkailConflictException.class)
            .isThrownBy(() -> this.client.fire("event-ended", "aprovacao", null))
            .withMessageContaining("has ended");
    }

    @Test
    void asyncCommandsRunAtTheSameTimeAndReplayInCallOrder() {
        this.flows.barrier = new java.util.concurrent.CyclicBarrier(2);
        this.client.trigger("paralelo", "parallel-1", "parallel-1");

        SkailExecution done = this.await.status("parallel-1", ExecutionStatus.COMPLETED);

        // the barrier opens only when both commands are inside it at once: they overlapped
        assertThat(done.result(String.class)).isEqualTo("ab");
        List<SkailStep> steps = this.client.history("parallel-1").steps();
        assertThat(steps).extracting(SkailStep::name).containsExactly("esperarOutro", "esperarOutro", "depois");
        assertThat(steps.get(0).argument(0, String.class)).isEqualTo("a");
        assertThat(steps.get(1).argument(0, String.class)).isEqualTo("b");
        // "depois" failed once: the replay returned both parallel steps from the history
        assertThat(this.flows.runs("parallel-1/esperarOutro-a")).isEqualTo(1);
        assertThat(this.flows.runs("parallel-1/esperarOutro-b")).isEqualTo(1);
    }

    @Test
    void failedParallelCommandRunsAgainOnTheFunctionRetryWhileTheCompletedOneDoesNot() {
        this.client.trigger("paraleloFalha", "parallel-retry", "parallel-retry");

        SkailExecution done = this.await.status("parallel-retry", ExecutionStatus.COMPLETED);

        assertThat(done.result(String.class)).isEqualTo("arapido");
        assertThat(this.flows.runs("parallel-retry/falhaNaPrimeiraRodada")).isEqualTo(2);
        assertThat(this.flows.runs("parallel-retry/rapido")).isEqualTo(1);
        assertThat(done.attempt()).isEqualTo(2);
    }

    @Test
    void whenAnyRecordsWhichTaskEndedFirstAndReplaysTheSameAnswer() {
        this.flows.releaseSlow = new java.util.concurrent.CountDownLatch(1);
        this.client.trigger("corrida", "race-1", "race-1");

        SkailExecution done = this.await.status("race-1", ExecutionStatus.COMPLETED);

        assertThat(done.result(String.class)).isEqualTo("rapido");
        // two deliveries (depois failed once), the same winner both times although both were done on replay
        assertThat(this.flows.notes("race-1")).containsExactly("winner rapido", "winner rapido");
        SkailStep whenAny = this.client.history("race-1").steps().get(2);
        assertThat(whenAny.kind()).isEqualTo("WHEN_ANY");
        assertThat(whenAny.result(int.class)).isEqualTo(1);
    }

    @Test
    void childFunctionRunsAsItsOwnExecutionAndItsResultReachesTheParent() {
        this.client.trigger("pai", "parent-1", "parent-1");

        SkailExecution done = this.await.status("parent-1", ExecutionStatus.COMPLETED);

        assertThat(done.result(String.class)).isEqualTo("parent got child did parent-1-item");
        SkailHistory parent = this.client.history("parent-1");
        SkailStep childStep = parent.steps().get(1);
        assertThat(childStep.kind()).isEqualTo("CHILD");
        assertThat(childStep.childTaskId()).isEqualTo("parent-1:1");
        SkailExecution child = this.client.find("parent-1:1").orElseThrow();
        assertThat(child.parentTaskId()).isEqualTo("parent-1");
        assertThat(child.function()).isEqualTo("filho");
        assertThat(child.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.flows.runs("parent-1:1/registrar")).isEqualTo(1);
        assertThat(this.flows.runs("parent-1/reservar")).isEqualTo(1);
    }

    @Test
    void childFailureReachesTheParentAsItsOwnExceptionClassAndMessage() {
        this.client.trigger("paiCompensa", "parent-2", "parent-2");

        SkailExecution done = this.await.status("parent-2", ExecutionStatus.COMPLETED);

        assertThat(done.result(String.class))
            .isEqualTo("parent caught IllegalStateException: child failed for parent-2");
        assertThat(this.client.find("parent-2:0").orElseThrow().status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(this.client.history("parent-2").steps().get(0).status()).isEqualTo("FAILED");
    }

    @Test
    void parentThatDoesNotCatchItsChildsFailureFailsAfterItsRetriesWithoutStartingTheChildAgain() {
        this.client.trigger("paiNaoCompensa", "parent-3", "parent-3");

        SkailExecution failed = this.await.status("parent-3", ExecutionStatus.FAILED);

        assertThat(failed.error().type()).isEqualTo(IllegalStateException.class.getName());
        assertThat(failed.error().message()).isEqualTo("child failed for parent-3");
        // three deliveries: start the child; see it failed (the parent's first failure); the redelivery, which gives up
        assertThat(this.flows.notes("parent-3")).hasSize(3);
        // the child ran its own two attempts once: the parent's redelivery replayed its recorded failure
        assertThat(this.flows.runs("parent-3:0/registrar")).isEqualTo(1);
        assertThat(this.client.find("parent-3:0").orElseThrow().attempt()).isEqualTo(2);
    }

    @Test
    void nowAndRandomUuidAreRecordedAndReturnTheSameOnReplay() {
        this.client.trigger("carimbar", "stamp-1", "stamp-1");

        SkailExecution done = this.await.status("stamp-1", ExecutionStatus.COMPLETED);

        List<String> seen = this.flows.notes("stamp-1");
        assertThat(seen).hasSize(2);
        assertThat(seen.get(1)).isEqualTo(seen.get(0));
        assertThat(seen.get(0)).endsWith(done.result(String.class));
        assertThat(this.client.history("stamp-1").steps()).extracting(SkailStep::kind)
            .containsExactly("NOW", "UUID", "COMMAND");
    }

    private int waits(String taskId) {
        return (int) this.client.history(taskId).steps().stream().filter((s) -> s.kind().equals("EVENT")).count();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ TimeFlows.class, SkailTestConfiguration.class })
    static class TimeApp {

    }
}
