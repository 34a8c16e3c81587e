package dev.skail.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The waiters of results: an end signalled with the execution as the store wrote it completes them without a read,
 * on the registry's threads; a signal of the same end meanwhile reads nothing; a bare signal reads the store once; an
 * execution that has not ended leaves them waiting.
 */
class ResultWaitersTests {

    private static final String ID = "pedido-1";

    /** The reads of {@link #ID}. */
    private final AtomicInteger reads = new AtomicInteger();

    private final AtomicReference<SkailExecution> stored = new AtomicReference<>(execution(ExecutionStatus.RUNNING,
            null));

    /** Held by the reads of other executions, to keep the registry's threads busy. */
    private final CountDownLatch others = new CountDownLatch(1);

    private final AtomicInteger othersReading = new AtomicInteger();

    /** Whether a delivery of {@link #ID} runs "here". */
    private final java.util.concurrent.atomic.AtomicBoolean delivered = new java.util.concurrent.atomic.AtomicBoolean();

    private final ResultWaiters waiters = new ResultWaiters((taskId) -> {
        if (!taskId.equals(ID)) {
            this.othersReading.incrementAndGet();
            try {
                this.others.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return Optional.empty();
        }
        // counted once read: a test that sees the count may change what the next read finds
        Optional<SkailExecution> read = Optional.of(this.stored.get());
        this.reads.incrementAndGet();
        return read;
    }, () -> () -> {
    }, (taskId) -> taskId.equals(ID) && this.delivered.get());

    @BeforeEach
    void noSafetyNet() {
        this.waiters.setRecheck(Duration.ofHours(1));
    }

    @AfterEach
    void close() {
        this.others.countDown();
        this.waiters.close();
    }

    @Test
    void anEndThatCarriesTheExecutionCompletesItsWaitersWithoutReadingItAndASecondSignalReadsNothing() {
        CompletableFuture<SkailExecution> first = this.waiters.await(ID);
        awaitReads(1); // the read as each wait starts: still RUNNING
        CompletableFuture<SkailExecution> second = this.waiters.await(ID);
        awaitReads(2);
        CompletableFuture<String> answeredOn = first.thenApply((e) -> Thread.currentThread().getName());
        holdTheRegistrysThreads();
        SkailExecution ended = execution(ExecutionStatus.COMPLETED, "{\"total\":150.50,\"pago\":\"2026-12-06T10:15:31-03:00\"}");

        this.waiters.ended(ID, ended);
        this.waiters.ended(ID); // the same end signalled again (the store's notification) while the first is queued
        this.others.countDown();

        await().until(() -> first.isDone() && second.isDone());
        assertThat(first).isCompletedWithValue(ended);
        assertThat(second).isCompletedWithValue(ended);
        assertThat(answeredOn.join()).startsWith("skail-results-");
        assertThat(this.reads).hasValue(2);
    }

    @Test
    void aBareEndSignalReadsTheStoreAndAnExecutionStillRunningKeepsItsWaiters() {
        CompletableFuture<SkailExecution> waiter = this.waiters.await(ID);
        awaitReads(1);

        this.waiters.ended(ID, execution(ExecutionStatus.RUNNING, null));
        awaitReads(2);
        assertThat(waiter).isNotDone();

        this.stored.set(execution(ExecutionStatus.FAILED, null));
        this.waiters.ended(ID);

        await().until(waiter::isDone);
        assertThat(waiter.join().status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(this.reads).hasValue(3);
    }

    @Test
    void aWaitThatStartsWhileTheExecutionIsDeliveredHereReadsOnlyOnceThatDeliveryEndsWithoutEndingIt() {
        holdTheRegistrysThreads();
        this.delivered.set(true);

        CompletableFuture<SkailExecution> waiter = this.waiters.await(ID);

        // the registry's threads are held: a read asked for would be queued still
        assertThat(this.waiters.readQueued(ID)).as("read queued as the wait started").isFalse();
        this.delivered.set(false);
        this.waiters.deliveryEnded(ID); // went to sleep: not ended
        assertThat(this.waiters.readQueued(ID)).isTrue();
        this.others.countDown();
        awaitReads(1);
        assertThat(waiter).isNotDone();
        this.waiters.deliveryEnded(ID); // another delivery, no wait started during it: nothing more to read
        assertThat(this.waiters.readQueued(ID)).isFalse();

        SkailExecution ended = execution(ExecutionStatus.COMPLETED, "{\"total\":150.50}");
        this.waiters.ended(ID, ended);
        await().until(waiter::isDone);
        assertThat(waiter).isCompletedWithValue(ended);
        assertThat(this.reads).hasValue(1);
    }

    /** Both of the registry's threads held by reads of other executions: what is queued meanwhile waits. */
    private void holdTheRegistrysThreads() {
        this.waiters.await("outro-1");
        this.waiters.await("outro-2");
        await().until(() -> this.othersReading.get() == 2);
    }

    private void awaitReads(int count) {
        await().until(() -> this.reads.get() == count);
    }

    private static SkailExecution execution(ExecutionStatus status, String result) {
        Instant at = Instant.parse("2026-12-06T13:15:30Z");
        return new SkailExecution(ID, "vendas", "v1", "processarPedido", status, "[{\"total\":150.00}]", result, null,
                1, at, at, null, null, null, Map.of("pedido", List.of("P-1")));
    }
}
