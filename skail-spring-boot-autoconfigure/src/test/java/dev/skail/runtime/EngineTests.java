package dev.skail.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.skail.ExecutionStatus;
import dev.skail.Skail;
import dev.skail.SkailAttempt;
import dev.skail.SkailTask;
import dev.skail.SkailCommand;
import dev.skail.SkailError;
import dev.skail.SkailFunction;
import dev.skail.SkailNonDeterministicException;
import dev.skail.SkailUsageException;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreUnavailableException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The replay engine against an in-memory store, deliveries run one by one on the test's thread and time moved by
 * hand: each test reads like what a user sees (how many times each command ran, the history, the final status).
 */
class EngineTests {

    private static final BigDecimal VALOR = new BigDecimal("150.00");

    private static final String PEDIDO = "pedido-42";

    private final Runs runs = new Runs();

    private EngineHarness harness;

    @AfterEach
    void closeHarness() {
        if (this.harness != null) {
            this.harness.close();
        }
    }

    /** The store the engine runs on; an in-memory one here. */
    ExecutionStore newStore() {
        return new InMemoryExecutionStore();
    }

    private EngineHarness start(Object flows) {
        this.harness = EngineHarness.of(flows, newStore(), SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        return this.harness;
    }

    private List<AttemptRow> functionAttempts() {
        return this.harness.attempts(PEDIDO).stream()
            .filter((attempt) -> attempt.position() == AttemptRow.FUNCTION_POSITION)
            .toList();
    }

    private List<AttemptRow> attemptsAt(int position) {
        return this.harness.attempts(PEDIDO).stream().filter((attempt) -> attempt.position() == position).toList();
    }

    private SkailError errorOf(AttemptRow attempt) {
        return this.harness.runtime.json().readError(attempt.error());
    }

    // ---------------------------------------------------------------- S1, S2, S6: replay and delays

    @Test
    void completedCommandIsNotRunAgainWhenTheFunctionIsReplayedAfterADelay() {
        EngineHarness harness = start(new PedidoComEspera(this.runs));
        harness.runUntilQuiet(PEDIDO);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("APROVADO pedido-42");
        assertThat(this.runs.count("processarPedido")).isEqualTo(2);
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::position, StepRow::kind, StepRow::name,
                StepRow::status)
            .containsExactly(tuple(0, StepRow.COMMAND, "reservarEstoque", StepRow.COMPLETED),
                    tuple(1, StepRow.DELAY, "delay", StepRow.COMPLETED),
                    tuple(2, StepRow.COMMAND, "cobrarCartao", StepRow.COMPLETED));
        assertThat(harness.attempts(PEDIDO)).extracting(AttemptRow::name, AttemptRow::outcome)
            .containsExactly(tuple("reservarEstoque", SkailAttempt.SUCCEEDED),
                    tuple("cobrarCartao", SkailAttempt.SUCCEEDED));
    }

    @Test
    void delayHibernatesWithNothingRunningUntilTheClockReachesItsDueTime() {
        EngineHarness harness = start(new PedidoComEspera(this.runs));
        Instant started = harness.clock.instant();

        ExecutionRow waiting = harness.runUntilQuiet(PEDIDO);

        assertThat(waiting.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(waiting.nextRunAt()).isEqualTo(started.plus(Duration.ofHours(1)).toEpochMilli());
        assertThat(harness.claim()).isEmpty();
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.PENDING));

        harness.advance(Duration.ofMinutes(59));
        int deliveries = harness.deliveries();
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(harness.deliveries()).isEqualTo(deliveries);
        assertThat(this.runs.count("cobrarCartao")).isZero();

        harness.advance(Duration.ofMinutes(1));
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.deliveries()).isEqualTo(deliveries + 1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
    }

    // ---------------------------------------------------------------- the writes a delay costs

    @Test
    void aDelayGoesToSleepInOneWriteAndIsFoundDueWithTheNextStep() {
        StoreWrites writes = new StoreWrites(newStore());
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), writes.store(), SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        Instant started = this.harness.clock.instant();

        ExecutionRow waiting = this.harness.runUntilQuiet(PEDIDO);

        // the PENDING delay is written with the suspension, not before it
        assertThat(waiting.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(writes.taken()).containsExactly("recordStep [0]", "suspend [1]");
        assertThat(this.harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status, StepRow::result)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED, "\"reservado pedido-42\""),
                    tuple(StepRow.DELAY, StepRow.PENDING,
                            Long.toString(started.plus(Duration.ofHours(1)).toEpochMilli())));

        this.harness.advance(Duration.ofHours(1));
        ExecutionRow execution = this.harness.runUntilQuiet(PEDIDO);

        // the delay found due is written with the next command's step, in one write
        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(writes.taken()).containsExactly("recordSteps [1, 2]", "complete []");
        assertThat(this.harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::name, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, "reservarEstoque", StepRow.COMPLETED),
                    tuple(StepRow.DELAY, "delay", StepRow.COMPLETED),
                    tuple(StepRow.COMMAND, "cobrarCartao", StepRow.COMPLETED));
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
    }

    /**
     * The store as the runtime sees it: its reads of an execution counted; an end that tells nothing (H2, in memory)
     * tells here what the store holds after it, as PostgreSQL's does; no notification of ends across instances.
     */
    private ExecutionStore countingReads(AtomicInteger reads) {
        return countingReads(reads, null, new AtomicBoolean(false));
    }

    /**
     * As {@link #countingReads(AtomicInteger)}; with a {@code listener}, a store that announces every end (as
     * PostgreSQL does): its announcements are the test's, through the listener it hands over, which listens while
     * {@code listens} holds.
     */
    private ExecutionStore countingReads(AtomicInteger reads,
            java.util.concurrent.atomic.@org.jspecify.annotations.Nullable AtomicReference<java.util.function.Consumer<String>> listener,
            AtomicBoolean listens) {
        ExecutionStore target = newStore();
        return (ExecutionStore) Proxy.newProxyInstance(ExecutionStore.class.getClassLoader(),
                new Class<?>[] { ExecutionStore.class }, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "findTagged" -> reads.incrementAndGet();
                        case "announcesEnds" -> {
                            return listener != null;
                        }
                        case "onEnded" -> {
                            if (listener != null) {
                                @SuppressWarnings("unchecked")
                                java.util.function.Consumer<String> ended =
                                        (java.util.function.Consumer<String>) args[0];
                                listener.set(ended);
                            }
                            return new ExecutionStore.Listening() {

                                @Override
                                public boolean listening() {
                                    return listens.get();
                                }

                                @Override
                                public void close() {
                                }
                            };
                        }
                        default -> {
                        }
                    }
                    try {
                        Object answer = method.invoke(target, args);
                        if (method.getName().equals("completeAndTell") && answer == null) {
                            return target.findTagged(((Lease) args[0]).taskId()).orElseThrow();
                        }
                        return answer;
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
    }

    @Test
    void aWaitThatStartsWhileTheExecutionIsDeliveredHereReadsOnlyWhenTheDeliveryEndsWithoutEndingIt() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch mayGo = new java.util.concurrent.CountDownLatch(1);
        this.harness = EngineHarness.of(new PedidoQueReservaDevagar(this.runs, entered, mayGo), countingReads(reads),
                SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1)); // no safety-net read during the test
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        java.util.concurrent.CompletableFuture<ExecutionRow> delivered = java.util.concurrent.CompletableFuture
            .supplyAsync(() -> this.harness.runUntilQuiet(PEDIDO));
        assertThat(entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        // while the delivery runs here: its end will signal, nothing is read as the wait starts (that no read is
        // queued is seen in ResultWaitersTests; here, that the delivery's sleep and its end reach the wait)
        java.util.concurrent.CompletableFuture<dev.skail.SkailExecution> ended = this.harness.runtime.awaitEnd(PEDIDO);
        mayGo.countDown();
        assertThat(delivered.get(10, java.util.concurrent.TimeUnit.SECONDS).status())
            .isEqualTo(ExecutionStatus.WAITING);

        // the delivery went to sleep without ending it: its waiters read once, and wait on
        org.awaitility.Awaitility.await().until(() -> reads.get() == 1);
        assertThat(ended).isNotDone();
        this.harness.advance(Duration.ofHours(1));
        this.harness.runUntilQuiet(PEDIDO);
        org.awaitility.Awaitility.await().until(ended::isDone);
        assertThat(reads).hasValue(1);
        assertThat(ended.join().result()).isEqualTo("\"APROVADO pedido-42\"");
    }

    @Test
    void aCallerWaitingForAnExecutionEndedHereIsAnsweredWithTheEndAsTheStoreToldItWithoutReadingIt() {
        AtomicInteger reads = new AtomicInteger();
        ExecutionStore store = countingReads(reads);
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), store, SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1)); // no safety-net read during the test
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        java.util.concurrent.CompletableFuture<dev.skail.SkailExecution> ended = this.harness.runtime.awaitEnd(PEDIDO);
        org.awaitility.Awaitility.await().until(() -> reads.get() == 1); // as the wait starts: not ended
        this.harness.runUntilQuiet(PEDIDO);
        this.harness.advance(Duration.ofHours(1));
        assertThat(ended).isNotDone();

        this.harness.runUntilQuiet(PEDIDO);

        org.awaitility.Awaitility.await().until(ended::isDone);
        assertThat(reads).hasValue(1);
        assertThat(ended.join().status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(ended.join().result()).isEqualTo("\"APROVADO pedido-42\"");
        assertThat(ended.join()).isEqualTo(this.harness.runtime.find(PEDIDO).orElseThrow());
    }

    /** A store that announces every end, whose listener listens: see {@link #countingReads}. */
    private ExecutionStore announcingEnds(AtomicInteger reads,
            java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<String>> listener) {
        return countingReads(reads, listener, new AtomicBoolean(true));
    }

    @Test
    void onAStoreThatAnnouncesEveryEndAWaitForAnExecutionCreatedHereReadsNothingAsItStartsNorWhenItSleeps()
            throws Exception {
        AtomicInteger reads = new AtomicInteger();
        var listener = new java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<String>>();
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), announcingEnds(reads, listener),
                SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1)); // no safety-net read during the test
        // before any wait, nothing listens: an execution created then is not trusted to be heard ending
        this.harness.trigger("processarPedido", "pedido-1", "pedido-1", VALOR);
        assertThat(this.harness.runtime.endSignalledHere("pedido-1")).isFalse();
        assertThat(this.harness.runtime.awaitEnd("pedido-1")).isNotDone();
        org.awaitility.Awaitility.await().until(() -> reads.get() == 1);
        assertThat(listener.get()).isNotNull();

        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isTrue();
        java.util.concurrent.CompletableFuture<dev.skail.SkailExecution> ended = this.harness.runtime.awaitEnd(PEDIDO);
        assertThat(this.harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
        this.harness.advance(Duration.ofHours(1));
        assertThat(this.harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);

        // answered with the end as the store told it: no read as the wait started, none when it slept, none at its end
        assertThat(ended.get(10, java.util.concurrent.TimeUnit.SECONDS).result()).isEqualTo("\"APROVADO pedido-42\"");
        assertThat(reads).hasValue(1);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isFalse();
    }

    @Test
    void onAStoreThatAnnouncesEveryEndAnEndHeardBeforeTheWaitStartsOrARepeatedTriggerMakesTheWaitRead()
            throws Exception {
        AtomicInteger reads = new AtomicInteger();
        var listener = new java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<String>>();
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), announcingEnds(reads, listener),
                SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1)); // a wait that reads nothing would hang
        assertThat(this.harness.runtime.awaitEnd("nada"))
            .failsWithin(Duration.ofSeconds(10))
            .withThrowableThat()
            .withCauseInstanceOf(dev.skail.SkailNotFoundException.class);

        // ended here before anyone waits: the wait reads it, ended
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isTrue();
        this.harness.runUntilQuiet(PEDIDO);
        this.harness.advance(Duration.ofHours(1));
        assertThat(this.harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isFalse();
        assertThat(this.harness.runtime.awaitEnd(PEDIDO).get(10, java.util.concurrent.TimeUnit.SECONDS).status())
            .isEqualTo(ExecutionStatus.COMPLETED);

        // a trigger that repeats the id of an execution that has ended creates nothing: its wait reads
        assertThat(this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR).created()).isFalse();
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isFalse();
        assertThat(this.harness.runtime.awaitEnd(PEDIDO).get(10, java.util.concurrent.TimeUnit.SECONDS).status())
            .isEqualTo(ExecutionStatus.COMPLETED);

        // an end another instance announces, and missed announcements (listening again after a break), unmark
        this.harness.trigger("processarPedido", "pedido-2", "pedido-2", VALOR);
        this.harness.trigger("processarPedido", "pedido-3", "pedido-3", VALOR);
        assertThat(this.harness.runtime.endSignalledHere("pedido-2")).isTrue();
        listener.get().accept("pedido-2");
        assertThat(this.harness.runtime.endSignalledHere("pedido-2")).isFalse();
        assertThat(this.harness.runtime.endSignalledHere("pedido-3")).isTrue();
        listener.get().accept(null);
        assertThat(this.harness.runtime.endSignalledHere("pedido-3")).isFalse();
    }

    @Test
    void onAStoreThatAnnouncesEveryEndATriggerWhoseCreateFailsLeavesNoMarkAndItsWaitReads() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        var listener = new java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<String>>();
        ExecutionStore announcing = announcingEnds(reads, listener);
        // the store fails the first create, as a sync that failed would (whether it committed or not is unknown)
        AtomicBoolean failCreate = new AtomicBoolean(true);
        ExecutionStore store = (ExecutionStore) Proxy.newProxyInstance(ExecutionStore.class.getClassLoader(),
                new Class<?>[] { ExecutionStore.class }, (proxy, method, args) -> {
                    if (method.getName().equals("create") && failCreate.getAndSet(false)) {
                        throw new StoreUnavailableException("skail store could not create execution " + PEDIDO
                                + ": sync failed (test)", new java.io.IOException("sync failed (test)"));
                    }
                    try {
                        return method.invoke(announcing, args);
                    }
                    catch (InvocationTargetException ex) {
                        throw ex.getCause();
                    }
                });
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), store, SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1)); // a wait that reads nothing would hang
        this.harness.runtime.awaitEnd("nada");
        org.awaitility.Awaitility.await().until(() -> reads.get() == 1);

        org.assertj.core.api.Assertions.assertThatExceptionOfType(dev.skail.SkailUnavailableException.class)
            .isThrownBy(() -> this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR));

        // no mark left: a wait reads what the store holds (here nothing: the create did not commit)
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isFalse();
        assertThat(this.harness.runtime.awaitEnd(PEDIDO))
            .failsWithin(Duration.ofSeconds(10))
            .withThrowableThat()
            .withCauseInstanceOf(dev.skail.SkailNotFoundException.class);
        assertThat(reads).hasValue(2);

        // the caller tries again: created, marked, and its end told without a read
        assertThat(this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR).created()).isTrue();
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isTrue();
        java.util.concurrent.CompletableFuture<dev.skail.SkailExecution> ended = this.harness.runtime.awaitEnd(PEDIDO);
        this.harness.runUntilQuiet(PEDIDO);
        this.harness.advance(Duration.ofHours(1));
        assertThat(this.harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(ended.get(10, java.util.concurrent.TimeUnit.SECONDS).status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(reads).hasValue(2);
    }

    @Test
    void anExecutionCreatedWhileTheStoresListenerIsDownOrAWaitThatStartsWhileItIsDownReads() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        var listener = new java.util.concurrent.atomic.AtomicReference<java.util.function.Consumer<String>>();
        AtomicBoolean listens = new AtomicBoolean(false);
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), countingReads(reads, listener, listens),
                SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1));
        this.harness.runtime.awaitEnd("nada");
        org.awaitility.Awaitility.await().until(() -> reads.get() == 1);

        // not listening yet (a LISTEN not sent, or failing): an end announced now would be missed
        this.harness.trigger("processarPedido", "pedido-1", "pedido-1", VALOR);
        assertThat(this.harness.runtime.endSignalledHere("pedido-1")).isFalse();

        // created while it listened, then the listening broke: a wait that starts now reads
        listens.set(true);
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isTrue();
        listens.set(false);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isFalse();
        this.harness.runtime.awaitEnd(PEDIDO);
        org.awaitility.Awaitility.await().until(() -> reads.get() == 2);
    }

    @Test
    void onAStoreThatDoesNotAnnounceEveryEndAWaitReadsAsItStarts() {
        AtomicInteger reads = new AtomicInteger();
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), countingReads(reads),
                SkailJson.createDefault());
        this.harness.runtime.setResultRecheckInterval(Duration.ofHours(1));
        this.harness.runtime.awaitEnd("nada");
        org.awaitility.Awaitility.await().until(() -> reads.get() == 1);
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        assertThat(this.harness.runtime.endSignalledHere(PEDIDO)).isFalse();
        this.harness.runtime.awaitEnd(PEDIDO);
        org.awaitility.Awaitility.await().until(() -> reads.get() == 2);
    }

    @Test
    void aDelayFoundDueJustBeforeTheFunctionReturnsIsWrittenBeforeItsEnd() {
        StoreWrites writes = new StoreWrites(newStore());
        this.harness = EngineHarness.of(new PedidoQueTerminaComEspera(this.runs), writes.store(),
                SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        this.harness.runUntilQuiet(PEDIDO);
        writes.taken();
        this.harness.advance(Duration.ofHours(1));

        ExecutionRow execution = this.harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.harness.result(PEDIDO, String.class)).isEqualTo("reservado pedido-42");
        assertThat(writes.taken()).containsExactly("recordSteps [1]", "complete []");
        assertThat(this.harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.COMPLETED));
    }

    @Test
    void aDelayWhoseSuspensionWasLostIsRecordedAgainWhenTheReplayReachesItAndNoCommandRunsTwice() {
        StoreWrites writes = new StoreWrites(newStore());
        this.harness = EngineHarness.of(new PedidoComEspera(this.runs), writes.store(), SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        writes.failNextSuspend();

        // the store is out when the delivery goes to sleep: the PENDING delay kept back is lost with the suspension
        ExecutionRow running = this.harness.runUntilQuiet(PEDIDO);
        assertThat(running.status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(this.harness.steps(PEDIDO)).extracting(StepRow::kind).containsExactly(StepRow.COMMAND);

        // the lease runs out; the replay keeps the command's result and reaches the delay again, due from now
        this.harness.advance(EngineHarness.LEASE.plusSeconds(1));
        Instant replayed = this.harness.clock.instant();
        ExecutionRow waiting = this.harness.runUntilQuiet(PEDIDO);

        assertThat(waiting.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(waiting.nextRunAt()).isEqualTo(replayed.plus(Duration.ofHours(1)).toEpochMilli());
        assertThat(this.harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.PENDING));
        this.harness.advance(Duration.ofHours(1));
        assertThat(this.harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
    }

    @Test
    void anEventWaitGoesToSleepWithItsSuspensionAndAnEventFiredMeanwhileWakesIt() {
        StoreWrites writes = new StoreWrites(newStore());
        this.harness = EngineHarness.of(new PedidoAguardandoPagamento(this.runs), writes.store(),
                SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, VALOR);
        this.harness.runUntilQuiet(PEDIDO);
        this.harness.advance(Duration.ofHours(1));
        writes.taken();

        ExecutionRow waiting = this.harness.runUntilQuiet(PEDIDO);

        // the delay found due goes with the look for a kept event; the PENDING wait with the suspension
        assertThat(waiting.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(writes.taken()).containsExactly("recordSteps [1]", "takeEvent", "suspend [2]");
        assertThat(this.harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.COMPLETED),
                    tuple(StepRow.EVENT, StepRow.PENDING));

        this.harness.fire(PEDIDO, "pagamentoAprovado", "PIX-1");
        this.harness.runUntilQuiet(PEDIDO);
        this.harness.advance(Duration.ofHours(1));
        ExecutionRow execution = this.harness.runUntilQuiet(PEDIDO);
        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.harness.result(PEDIDO, String.class)).isEqualTo("PIX-1/nenhum");
    }

    // ---------------------------------------------------------------- S3, S4: command failures

    @Test
    void commandThatFailsTwiceWithRetryCountTwoSucceedsOnItsThirdAttemptUnseenByTheFunction() {
        EngineHarness harness = start(new PedidoComGatewayInstavel(this.runs, 2));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("APROVADO");
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(3);
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.seen()).isEmpty();
        assertThat(execution.attempt()).isEqualTo(1);
        assertThat(functionAttempts()).isEmpty();
        assertThat(attemptsAt(1)).extracting(AttemptRow::functionAttempt, AttemptRow::number, AttemptRow::outcome,
                AttemptRow::decision)
            .containsExactly(tuple(1, 1, SkailAttempt.FAILED, SkailAttempt.RETRY),
                    tuple(1, 2, SkailAttempt.FAILED, SkailAttempt.RETRY),
                    tuple(1, 3, SkailAttempt.SUCCEEDED, SkailAttempt.RECORDED));
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::name, StepRow::status)
            .containsExactly(tuple("reservarEstoque", StepRow.COMPLETED), tuple("cobrarCartao", StepRow.COMPLETED));
    }

    @Test
    void commandWhoseAttemptsAreSpentThrowsItsOriginalExceptionIntoTheFunction() {
        EngineHarness harness = start(new PedidoComGatewayInstavel(this.runs, 3));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("RECUSADO");
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(3);
        assertThat(this.runs.seen()).singleElement().satisfies((seen) -> {
            assertThat(seen).isInstanceOf(GatewayException.class);
            assertThat(seen).hasMessage("gateway indisponível (run 3)");
        });
        assertThat(attemptsAt(1)).extracting(AttemptRow::decision)
            .containsExactly(SkailAttempt.RETRY, SkailAttempt.RETRY, SkailAttempt.GIVE_UP);
    }

    @Test
    void commandWithRetryCountZeroThrowsAtTheCallOnTheFirstRunAndAgainOnReplay() {
        EngineHarness harness = start(new PedidoComCartaoRecusado(this.runs));
        harness.runUntilQuiet(PEDIDO);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("RECUSADO");
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
        assertThat(this.runs.seen()).hasSize(2).allSatisfy((seen) -> {
            assertThat(seen).isExactlyInstanceOf(PagamentoRecusadoException.class);
            assertThat(seen).hasMessage("cartão recusado para pedido-42");
        });
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::name, StepRow::status)
            .containsExactly(tuple("cobrarCartao", StepRow.FAILED), tuple("delay", StepRow.COMPLETED));
        assertThat(attemptsAt(0)).extracting(AttemptRow::outcome, AttemptRow::decision)
            .containsExactly(tuple(SkailAttempt.FAILED, SkailAttempt.GIVE_UP));
    }

    // ---------------------------------------------------------------- S5: function failures

    @Test
    void functionFailureIsRedeliveredAndOnlyTheCommandThatFailedInThatAttemptRunsAgain() {
        EngineHarness harness = start(new PedidoComFalhaDaFuncao(this.runs));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("APROVADO");
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        // retryCount = 1: two attempts in the first function attempt, then its attempts start over
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(3);
        assertThat(execution.attempt()).isEqualTo(2);
        assertThat(functionAttempts()).extracting(AttemptRow::functionAttempt, AttemptRow::outcome,
                AttemptRow::decision)
            .containsExactly(tuple(1, SkailAttempt.FAILED, SkailAttempt.RETRY));
        assertThat(errorOf(functionAttempts().get(0)).type()).isEqualTo(GatewayException.class.getName());
        assertThat(attemptsAt(1)).extracting(AttemptRow::functionAttempt, AttemptRow::number, AttemptRow::decision)
            .containsExactly(tuple(1, 1, SkailAttempt.RETRY), tuple(1, 2, SkailAttempt.GIVE_UP),
                    tuple(2, 1, SkailAttempt.RECORDED));
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::name, StepRow::status)
            .containsExactly(tuple("reservarEstoque", StepRow.COMPLETED), tuple("cobrarCartao", StepRow.COMPLETED));
    }

    @Test
    void compensationThenRethrowFollowsTheRecordedFailurePathOnEveryRedeliveryUntilFailed() {
        EngineHarness harness = start(new PedidoComEstorno(this.runs));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(this.runs.count("processarPedido")).isEqualTo(3);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
        assertThat(this.runs.count("estornar")).isEqualTo(1);
        assertThat(this.runs.count("confirmarPedido")).isZero();
        assertThat(harness.error(PEDIDO).type()).isEqualTo(PagamentoRecusadoException.class.getName());
        assertThat(harness.error(PEDIDO).message()).isEqualTo("cartão recusado para pedido-42");
        assertThat(functionAttempts()).extracting(AttemptRow::decision)
            .containsExactly(SkailAttempt.RETRY, SkailAttempt.RETRY, SkailAttempt.GIVE_UP);
        assertThat(functionAttempts()).extracting((attempt) -> errorOf(attempt).type())
            .containsOnly(PagamentoRecusadoException.class.getName());
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::name, StepRow::status)
            .containsExactly(tuple("cobrarCartao", StepRow.FAILED), tuple("estornar", StepRow.COMPLETED));
    }

    @Test
    void compensationThatFailsRunsAgainOnTheFunctionRetryButTheChargeItCompensatesNeverDoes() {
        EngineHarness harness = start(new PedidoComEstornoInstavel(this.runs));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        // attempt 1: cobrarCartao refused (kept: the function reacted to it), estornar fails (dropped: nothing came
        // after it); attempts 2 and 3 replay the refusal, estornar runs again once and is recorded
        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
        assertThat(this.runs.count("estornar")).isEqualTo(2);
        assertThat(harness.error(PEDIDO).type()).isEqualTo(PagamentoRecusadoException.class.getName());
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::name, StepRow::status)
            .containsExactly(tuple("cobrarCartao", StepRow.FAILED), tuple("estornar", StepRow.COMPLETED));
    }

    @Test
    void asyncFailuresTheFunctionNeverAwaitedRunAgainOnItsRetry() {
        EngineHarness harness = start(new PedidoEmParalelo(this.runs));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        // reservarEstoque's failure left the function; cobrarCartao's failure was recorded but never awaited:
        // both run again on the retry, while emitirNota, which completed, does not
        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(2);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(2);
        assertThat(this.runs.count("emitirNota")).isEqualTo(1);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("reservado, APROVADO");
    }

    @Test
    void exceptionThrownDuringReplayBeforeTheHistoryIsConsumedIsAFunctionFailureNotADivergence() {
        EngineHarness harness = start(new PedidoQueFalhaNaSegundaEntrega(this.runs));
        harness.runUntilQuiet(PEDIDO);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("APROVADO pedido-42");
        assertThat(this.runs.count("processarPedido")).isEqualTo(3);
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
        assertThat(functionAttempts()).singleElement().satisfies((attempt) -> {
            assertThat(attempt.decision()).isEqualTo(SkailAttempt.RETRY);
            assertThat(errorOf(attempt).type()).isEqualTo(IllegalStateException.class.getName());
            assertThat(errorOf(attempt).message()).isEqualTo("tabela de preços ainda não carregada");
        });
    }

    // ---------------------------------------------------------------- S7: events

    @Test
    void eventFiredBeforeTheWaitIsKeptAndConsumedOnce() {
        EngineHarness harness = start(new PedidoAguardandoPagamento(this.runs));
        harness.runUntilQuiet(PEDIDO);

        harness.fire(PEDIDO, "pagamentoAprovado", "PIX-1");
        ExecutionRow stillDelayed = harness.runUntilQuiet(PEDIDO);

        // woken by the event, it goes back to sleep until its delay is due; the event is kept
        assertThat(stillDelayed.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(harness.events(PEDIDO)).extracting(EventRow::consumedPosition).containsExactly((Integer) null);

        harness.advance(Duration.ofHours(1));
        ExecutionRow waitingForSecond = harness.runUntilQuiet(PEDIDO);
        assertThat(waitingForSecond.status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(harness.events(PEDIDO)).extracting(EventRow::consumedPosition).containsExactly(2);

        harness.advance(Duration.ofHours(1));
        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("PIX-1/nenhum");
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind, StepRow::status)
            .containsExactly(tuple(StepRow.COMMAND, StepRow.COMPLETED), tuple(StepRow.DELAY, StepRow.COMPLETED),
                    tuple(StepRow.EVENT, StepRow.COMPLETED), tuple(StepRow.EVENT, StepRow.COMPLETED));
    }

    @Test
    void eachWaitConsumesOneEventInArrivalOrder() {
        EngineHarness harness = start(new PedidoAguardandoPagamento(this.runs));
        harness.fire(PEDIDO, "pagamentoAprovado", "PIX-1");
        harness.fire(PEDIDO, "pagamentoAprovado", "PIX-2");
        harness.runUntilQuiet(PEDIDO);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo("PIX-1/PIX-2");
        assertThat(harness.events(PEDIDO)).extracting(EventRow::payload, EventRow::consumedPosition)
            .containsExactly(tuple("\"PIX-1\"", 2), tuple("\"PIX-2\"", 3));
    }

    // ---------------------------------------------------------------- S10: non-determinism and misuse

    @Test
    void changedStepOrderFailsTheExecutionWithANonDeterministicExceptionNamingTheStep() {
        AtomicBoolean cobrarAntes = new AtomicBoolean();
        EngineHarness harness = start(new PedidoReordenado(this.runs, cobrarAntes));
        harness.runUntilQuiet(PEDIDO);
        cobrarAntes.set(true);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        SkailError error = harness.error(PEDIDO);
        assertThat(error.type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(error.message()).contains("at step 0", "COMMAND 'reservarEstoque'", "COMMAND 'cobrarCartao'");
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
        // a divergence is not redelivered: retrying the same code would diverge again
        assertThat(functionAttempts()).isEmpty();
    }

    @Test
    void divergenceCaughtByTheFunctionStillFailsTheExecution() {
        AtomicBoolean cobrarAntes = new AtomicBoolean();
        EngineHarness harness = start(new PedidoQueEscondeDivergencia(this.runs, cobrarAntes));
        harness.runUntilQuiet(PEDIDO);
        cobrarAntes.set(true);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(harness.error(PEDIDO).type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(this.runs.seen()).singleElement().isInstanceOf(SkailNonDeterministicException.class);
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1);
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
    }

    @Test
    void functionThatNowReturnsBeforeReachingItsRecordedStepsFailsAsNonDeterministic() {
        AtomicBoolean semCobranca = new AtomicBoolean();
        EngineHarness harness = start(new PedidoEncurtado(this.runs, semCobranca));
        harness.runUntilQuiet(PEDIDO);
        harness.advance(Duration.ofHours(1));
        assertThat(harness.runUntilQuiet(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
        semCobranca.set(true);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        SkailError error = harness.error(PEDIDO);
        assertThat(error.type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(error.message()).contains("at step 2", "COMMAND 'cobrarCartao'");
        assertThat(this.runs.count("cobrarCartao")).isEqualTo(1);
    }

    @Test
    void delayWhoseDurationChangedBetweenDeliveriesDivergesNamingBothDurations() {
        AtomicLong esperaMinutos = new AtomicLong(60);
        EngineHarness harness = start(new PedidoComEsperaConfiguravel(this.runs, esperaMinutos));
        harness.runUntilQuiet(PEDIDO);
        esperaMinutos.set(180);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        // skail's "Determinismo e replay": the recorded delay (60 min) does not match the one asked for (180 min)
        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        SkailError error = harness.error(PEDIDO);
        assertThat(error.type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(error.message()).contains("at step 1", "[" + Duration.ofMinutes(60).toMillis() + "]",
                "[" + Duration.ofMinutes(180).toMillis() + "]");
        assertThat(this.runs.count("cobrarCartao")).isZero();
    }

    @Test
    void functionThatCatchesThrowableAroundAStepAndReturnsFailsNamingWhereItCaughtIt() {
        PedidoQueEngoleSuspensao flows = new PedidoQueEngoleSuspensao(this.runs, new AtomicInteger());
        EngineHarness harness = start(flows);

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.FAILED);
        SkailError error = harness.error(PEDIDO);
        assertThat(error.type()).isEqualTo(SkailUsageException.class.getName());
        assertThat(error.message()).contains(PedidoQueEngoleSuspensao.class.getName() + ".processarPedido(EngineTests.java:"
                + flows.linhaDoDelay.get() + ")", "Do not catch Throwable");
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind)
            .containsExactly(StepRow.COMMAND, StepRow.DELAY);
    }

    @Test
    void nowAndRandomUuidReplayTheValuesRecordedOnTheFirstRun() {
        List<String> vistos = new CopyOnWriteArrayList<>();
        EngineHarness harness = start(new PedidoComCarimbo(vistos));
        Instant firstRun = harness.clock.instant();
        harness.runUntilQuiet(PEDIDO);
        harness.advance(Duration.ofHours(1));

        ExecutionRow execution = harness.runUntilQuiet(PEDIDO);

        assertThat(execution.status()).isEqualTo(ExecutionStatus.COMPLETED);
        assertThat(vistos).hasSize(2).containsOnly(vistos.get(0));
        assertThat(vistos.get(0)).startsWith(firstRun + " ");
        assertThat(harness.result(PEDIDO, String.class)).isEqualTo(vistos.get(0));
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::kind)
            .containsExactly(StepRow.NOW, StepRow.UUID, StepRow.DELAY);
    }

    // ---------------------------------------------------------------- arguments

    @Test
    void functionReceivesAMonetaryArgumentWithItsExactScaleAndPrecision() {
        this.harness = EngineHarness.of(new PedidoComValor(), newStore(), SkailJson.createDefault());
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, new BigDecimal("12345678901234567.80"));

        this.harness.runUntilQuiet(PEDIDO);

        assertThat(this.harness.result(PEDIDO, String.class)).isEqualTo("12345678901234567.80");
    }

    @Test
    void monetaryArgumentKeepsItsScaleAndPrecisionWhenTheCodecReadsFloatsAsBigDecimal() {
        // the fix proposed for the test above, applied here through an application's own codec
        this.harness = EngineHarness.of(new PedidoComValor(), newStore(), new SkailJson(JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build()));
        this.harness.trigger("processarPedido", PEDIDO, PEDIDO, new BigDecimal("12345678901234567.80"));

        this.harness.runUntilQuiet(PEDIDO);

        assertThat(this.harness.result(PEDIDO, String.class)).isEqualTo("12345678901234567.80");
    }

    // ---------------------------------------------------------------- S14: fencing

    @Test
    void deliveryWhoseLeaseWasTakenOverRecordsNothing() {
        EngineHarness harness = start(new PedidoComEspera(this.runs));
        Lease stale = harness.claim().get(0);
        harness.advance(EngineHarness.LEASE.plusSeconds(1));
        Lease current = harness.claim().get(0);

        harness.deliver(stale);

        assertThat(this.runs.count("reservarEstoque")).isEqualTo(1); // effects are at least once
        assertThat(harness.steps(PEDIDO)).isEmpty();
        assertThat(harness.attempts(PEDIDO)).isEmpty();
        assertThat(harness.execution(PEDIDO).status()).isEqualTo(ExecutionStatus.RUNNING);
        assertThat(harness.claim()).isEmpty();

        harness.deliver(current);

        assertThat(harness.execution(PEDIDO).status()).isEqualTo(ExecutionStatus.WAITING);
        assertThat(harness.steps(PEDIDO)).extracting(StepRow::name).containsExactly("reservarEstoque", "delay");
        assertThat(this.runs.count("reservarEstoque")).isEqualTo(2);
    }

    // ---------------------------------------------------------------- the flows

    /** How many times each step's body ran, and what the functions caught. */
    static final class Runs {

        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        private final List<Throwable> seen = new CopyOnWriteArrayList<>();

        int ran(String step) {
            return this.counts.computeIfAbsent(step, (name) -> new AtomicInteger()).incrementAndGet();
        }

        int count(String step) {
            AtomicInteger count = this.counts.get(step);
            return (count != null) ? count.get() : 0;
        }

        void saw(Throwable failure) {
            this.seen.add(failure);
        }

        List<Throwable> seen() {
            return this.seen;
        }
    }

    /** A payment refused for good: retrying does not help. */
    public static class PagamentoRecusadoException extends Exception {

        private static final long serialVersionUID = 1L;

        public PagamentoRecusadoException(String message) {
            super(message);
        }
    }

    /** The line of the code that calls this. */
    static int lineHere() {
        return StackWalker.getInstance().walk((frames) -> frames.skip(1).findFirst()).orElseThrow().getLineNumber();
    }

    public static class PedidoComEspera {

        private final Runs runs;

        PedidoComEspera(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            this.runs.ran("processarPedido");
            reservarEstoque(pedidoId);
            Skail.delay(Duration.ofHours(1));
            return cobrarCartao(pedidoId, valor);
        }

        @SkailCommand
        public String reservarEstoque(String pedidoId) {
            this.runs.ran("reservarEstoque");
            return "reservado " + pedidoId;
        }

        @SkailCommand
        public String cobrarCartao(String pedidoId, BigDecimal valor) {
            this.runs.ran("cobrarCartao");
            return "APROVADO " + pedidoId;
        }
    }

    public static class PedidoComGatewayInstavel {

        private final Runs runs;

        private final int falhas;

        PedidoComGatewayInstavel(Runs runs, int falhas) {
            this.runs = runs;
            this.falhas = falhas;
        }

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            reservarEstoque(pedidoId);
            try {
                return cobrarCartao(pedidoId, valor);
            }
            catch (GatewayException ex) {
                this.runs.saw(ex);
                return "RECUSADO";
            }
        }

        @SkailCommand
        public String reservarEstoque(String pedidoId) {
            this.runs.ran("reservarEstoque");
            return "reservado " + pedidoId;
        }

        @SkailCommand(retryCount = 2)
        public String cobrarCartao(String pedidoId, BigDecimal valor) throws GatewayException {
            int run = this.runs.ran("cobrarCartao");
            if (run <= this.falhas) {
                throw new GatewayException("gateway indisponível (run " + run + ")");
            }
            return "APROVADO";
        }
    }

    public static class PedidoComCartaoRecusado {

        private final Runs runs;

        PedidoComCartaoRecusado(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            String status;
            try {
                status = cobrarCartao(pedidoId, valor);
            }
            catch (PagamentoRecusadoException ex) {
                this.runs.saw(ex);
                status = "RECUSADO";
            }
            Skail.delay(Duration.ofHours(1));
            return status;
        }

        @SkailCommand(retryCount = 0)
        public String cobrarCartao(String pedidoId, BigDecimal valor) throws PagamentoRecusadoException {
            this.runs.ran("cobrarCartao");
            throw new PagamentoRecusadoException("cartão recusado para " + pedidoId);
        }
    }

    public static class PedidoComFalhaDaFuncao {

        private final Runs runs;

        PedidoComFalhaDaFuncao(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) throws GatewayException {
            reservarEstoque(pedidoId);
            return cobrarCartao(pedidoId, valor);
        }

        @SkailCommand
        public String reservarEstoque(String pedidoId) {
            this.runs.ran("reservarEstoque");
            return "reservado " + pedidoId;
        }

        @SkailCommand(retryCount = 1)
        public String cobrarCartao(String pedidoId, BigDecimal valor) throws GatewayException {
            int run = this.runs.ran("cobrarCartao");
            if (run <= 2) {
                throw new GatewayException("gateway indisponível (run " + run + ")");
            }
            return "APROVADO";
        }
    }

    public static class PedidoComEstorno {

        private final Runs runs;

        PedidoComEstorno(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction(retryCount = 2)
        public String processarPedido(String pedidoId, BigDecimal valor) throws PagamentoRecusadoException {
            this.runs.ran("processarPedido");
            try {
                cobrarCartao(pedidoId, valor);
            }
            catch (PagamentoRecusadoException ex) {
                estornar(pedidoId, valor);
                throw ex;
            }
            confirmarPedido(pedidoId);
            return "CONFIRMADO";
        }

        @SkailCommand(retryCount = 0)
        public String cobrarCartao(String pedidoId, BigDecimal valor) throws PagamentoRecusadoException {
            if (this.runs.ran("cobrarCartao") == 1) {
                throw new PagamentoRecusadoException("cartão recusado para " + pedidoId);
            }
            return "APROVADO";
        }

        @SkailCommand
        public void estornar(String pedidoId, BigDecimal valor) {
            this.runs.ran("estornar");
        }

        @SkailCommand
        public void confirmarPedido(String pedidoId) {
            this.runs.ran("confirmarPedido");
        }
    }

    /** Compensates a refused charge, and the compensation itself fails once. */
    public static class PedidoComEstornoInstavel extends PedidoComEstorno {

        private final Runs runs;

        PedidoComEstornoInstavel(Runs runs) {
            super(runs);
            this.runs = runs;
        }

        @Override
        @SkailCommand(retryCount = 0)
        public void estornar(String pedidoId, BigDecimal valor) {
            if (this.runs.ran("estornar") == 1) {
                throw new IllegalStateException("estoque fora do ar");
            }
        }
    }

    /** Three steps at once; the first two fail on their first run; the function awaits only the first two. */
    public static class PedidoEmParalelo {

        private final Runs runs;

        PedidoEmParalelo(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction(retryCount = 1)
        public String processarPedido(String pedidoId, BigDecimal valor) {
            SkailTask<String> reserva = Skail.async(() -> reservarEstoque(pedidoId));
            SkailTask<String> cobranca = Skail.async(() -> cobrarCartao(pedidoId, valor));
            Skail.async(() -> emitirNota(pedidoId));
            return reserva.await() + ", " + cobranca.await();
        }

        @SkailCommand(retryCount = 0)
        public String reservarEstoque(String pedidoId) {
            if (this.runs.ran("reservarEstoque") == 1) {
                throw new IllegalStateException("estoque fora do ar");
            }
            return "reservado";
        }

        @SkailCommand(retryCount = 0)
        public String cobrarCartao(String pedidoId, BigDecimal valor) {
            if (this.runs.ran("cobrarCartao") == 1) {
                throw new IllegalStateException("gateway fora do ar");
            }
            return "APROVADO";
        }

        @SkailCommand
        public String emitirNota(String pedidoId) {
            this.runs.ran("emitirNota");
            return "nota";
        }
    }

    public static class PedidoQueFalhaNaSegundaEntrega extends PedidoComEspera {

        private final Runs runs;

        PedidoQueFalhaNaSegundaEntrega(Runs runs) {
            super(runs);
            this.runs = runs;
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            if (this.runs.ran("processarPedido") == 2) {
                throw new IllegalStateException("tabela de preços ainda não carregada");
            }
            reservarEstoque(pedidoId);
            Skail.delay(Duration.ofHours(1));
            return cobrarCartao(pedidoId, valor);
        }
    }

    public static class PedidoAguardandoPagamento {

        private final Runs runs;

        PedidoAguardandoPagamento(Runs runs) {
            this.runs = runs;
        }

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            reservarEstoque(pedidoId);
            Skail.delay(Duration.ofHours(1));
            String primeiro = Skail.waitForEvent("pagamentoAprovado", String.class);
            Optional<String> segundo = Skail.waitForEvent("pagamentoAprovado", String.class, Duration.ofHours(1));
            return primeiro + "/" + segundo.orElse("nenhum");
        }

        @SkailCommand
        public String reservarEstoque(String pedidoId) {
            this.runs.ran("reservarEstoque");
            return "reservado " + pedidoId;
        }
    }

    public static class PedidoReordenado extends PedidoComEspera {

        private final AtomicBoolean cobrarAntes;

        PedidoReordenado(Runs runs, AtomicBoolean cobrarAntes) {
            super(runs);
            this.cobrarAntes = cobrarAntes;
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            if (this.cobrarAntes.get()) {
                cobrarCartao(pedidoId, valor);
                reservarEstoque(pedidoId);
            }
            else {
                reservarEstoque(pedidoId);
                cobrarCartao(pedidoId, valor);
            }
            Skail.delay(Duration.ofHours(1));
            return "CONFIRMADO";
        }
    }

    public static class PedidoQueEscondeDivergencia extends PedidoComEspera {

        private final Runs runs;

        private final AtomicBoolean cobrarAntes;

        PedidoQueEscondeDivergencia(Runs runs, AtomicBoolean cobrarAntes) {
            super(runs);
            this.runs = runs;
            this.cobrarAntes = cobrarAntes;
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            if (this.cobrarAntes.get()) {
                try {
                    cobrarCartao(pedidoId, valor);
                }
                catch (RuntimeException ex) {
                    this.runs.saw(ex);
                }
                reservarEstoque(pedidoId);
            }
            else {
                reservarEstoque(pedidoId);
                cobrarCartao(pedidoId, valor);
            }
            Skail.delay(Duration.ofHours(1));
            return "CONFIRMADO";
        }
    }

    public static class PedidoEncurtado extends PedidoComEspera {

        private final AtomicBoolean semCobranca;

        PedidoEncurtado(Runs runs, AtomicBoolean semCobranca) {
            super(runs);
            this.semCobranca = semCobranca;
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            reservarEstoque(pedidoId);
            Skail.delay(Duration.ofHours(1));
            if (!this.semCobranca.get()) {
                cobrarCartao(pedidoId, valor);
                Skail.delay(Duration.ofHours(1));
            }
            return "CONFIRMADO";
        }
    }

    /** Its first command waits until the test lets it go. */
    public static class PedidoQueReservaDevagar extends PedidoComEspera {

        private final java.util.concurrent.CountDownLatch entered;

        private final java.util.concurrent.CountDownLatch mayGo;

        PedidoQueReservaDevagar(Runs runs, java.util.concurrent.CountDownLatch entered,
                java.util.concurrent.CountDownLatch mayGo) {
            super(runs);
            this.entered = entered;
            this.mayGo = mayGo;
        }

        @Override
        @SkailCommand
        public String reservarEstoque(String pedidoId) {
            this.entered.countDown();
            try {
                this.mayGo.await(10, java.util.concurrent.TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return super.reservarEstoque(pedidoId);
        }
    }

    public static class PedidoQueTerminaComEspera extends PedidoComEspera {

        PedidoQueTerminaComEspera(Runs runs) {
            super(runs);
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            String reserva = reservarEstoque(pedidoId);
            Skail.delay(Duration.ofHours(1));
            return reserva;
        }
    }

    /**
     * The store under test, seen through what the runtime asks of it: each write a delivery makes, named with the
     * positions of the steps it carries; the next suspension can be made to fail as if the store were out.
     */
    static final class StoreWrites {

        private static final Set<String> WRITES = Set.of("recordStep", "recordSteps", "recordAttempt", "suspend",
                "complete", "completeAndTell", "fail", "takeEvent", "startChild", "scheduleFunctionRetry");

        private final List<String> taken = new CopyOnWriteArrayList<>();

        private final AtomicBoolean failNextSuspend = new AtomicBoolean();

        private final ExecutionStore store;

        StoreWrites(ExecutionStore target) {
            this.store = (ExecutionStore) Proxy.newProxyInstance(ExecutionStore.class.getClassLoader(),
                    new Class<?>[] { ExecutionStore.class }, (proxy, method, args) -> {
                        if (WRITES.contains(method.getName())) {
                            if (method.getName().equals("suspend") && this.failNextSuspend.getAndSet(false)) {
                                throw new StoreUnavailableException("the store is out (test)", null);
                            }
                            this.taken.add(describe(method.getName(), args));
                        }
                        try {
                            return method.invoke(target, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }

        ExecutionStore store() {
            return this.store;
        }

        void failNextSuspend() {
            this.failNextSuspend.set(true);
        }

        /** The writes made since the last call. */
        List<String> taken() {
            List<String> writes = List.copyOf(this.taken);
            this.taken.clear();
            return writes;
        }

        private static String describe(String name, Object[] args) {
            List<Integer> positions = new ArrayList<>();
            for (Object arg : args) {
                if (arg instanceof StepRow step) {
                    positions.add(step.position());
                }
                else if (arg instanceof List<?> list) {
                    list.stream().filter(StepRow.class::isInstance)
                        .forEach((step) -> positions.add(((StepRow) step).position()));
                }
            }
            return switch (name) {
                case "takeEvent" -> name;
                case "complete", "completeAndTell" -> "complete []"; // one write, whether it tells the end or not
                default -> name + " " + positions;
            };
        }
    }

    public static class PedidoComEsperaConfiguravel extends PedidoComEspera {

        private final AtomicLong esperaMinutos;

        PedidoComEsperaConfiguravel(Runs runs, AtomicLong esperaMinutos) {
            super(runs);
            this.esperaMinutos = esperaMinutos;
        }

        @Override
        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            reservarEstoque(pedidoId);
            Skail.delay(Duration.ofMinutes(this.esperaMinutos.get()));
            return cobrarCartao(pedidoId, valor);
        }
    }

    public static class PedidoQueEngoleSuspensao extends PedidoComEspera {

        final AtomicInteger linhaDoDelay;

        PedidoQueEngoleSuspensao(Runs runs, AtomicInteger linhaDoDelay) {
            super(runs);
            this.linhaDoDelay = linhaDoDelay;
        }

        @Override
        @SkailFunction
        @SuppressWarnings("PMD.AvoidCatchingThrowable")
        public String processarPedido(String pedidoId, BigDecimal valor) {
            reservarEstoque(pedidoId);
            try {
                // one line, so that the line noted is the delay's
                this.linhaDoDelay.set(lineHere()); Skail.delay(Duration.ofHours(1));
            }
            catch (Throwable ex) {
                // the mistake under test: this also catches the suspension the delay unwinds the function with
            }
            return "CONFIRMADO";
        }
    }

    public static class PedidoComValor {

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            return valor.toPlainString();
        }
    }

    public static class PedidoComCarimbo {

        private final List<String> vistos;

        PedidoComCarimbo(List<String> vistos) {
            this.vistos = vistos;
        }

        @SkailFunction
        public String processarPedido(String pedidoId, BigDecimal valor) {
            Instant agora = Skail.now();
            UUID referencia = Skail.randomUUID();
            this.vistos.add(agora + " " + referencia);
            Skail.delay(Duration.ofHours(1));
            return agora + " " + referencia;
        }
    }
}
