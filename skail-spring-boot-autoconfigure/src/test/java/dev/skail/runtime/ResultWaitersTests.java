package dev.skail.runtime;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The waiters of results: an end signalled with the execution as the store wrote it completes them without a read; a
 * bare signal reads the store once; an execution that has not ended leaves them waiting.
 */
class ResultWaitersTests {

    private final AtomicInteger reads = new AtomicInteger();

    private final AtomicReference<SkailExecution> stored = new AtomicReference<>(execution(ExecutionStatus.RUNNING,
            null));

    private final ResultWaiters waiters = new ResultWaiters((taskId) -> {
        this.reads.incrementAndGet();
        return Optional.of(this.stored.get());
    }, () -> () -> {
    });

    @AfterEach
    void close() {
        this.waiters.close();
    }

    @Test
    void anEndThatCarriesTheExecutionCompletesItsWaitersWithoutReadingIt() {
        CompletableFuture<SkailExecution> first = this.waiters.await("pedido-1");
        awaitReads(1); // the read as each wait starts: still RUNNING
        CompletableFuture<SkailExecution> second = this.waiters.await("pedido-1");
        awaitReads(2);
        SkailExecution ended = execution(ExecutionStatus.COMPLETED, "{\"total\":150.50,\"pago\":\"2026-12-06T10:15:31-03:00\"}");
        CompletableFuture<String> answeredOn = first.thenApply((e) -> Thread.currentThread().getName());

        this.waiters.ended("pedido-1", ended);
        this.waiters.ended("pedido-1"); // the same end signalled again (the store's notification): nothing read

        await().until(() -> first.isDone() && second.isDone());
        assertThat(first).isCompletedWithValue(ended);
        assertThat(second).isCompletedWithValue(ended);
        assertThat(this.reads).hasValue(2);
        assertThat(this.waiters.waitedFor()).isZero();
        // completed on the registry's threads, never on the thread that signalled the end (a worker's)
        assertThat(answeredOn.join()).startsWith("skail-results-");
    }

    @Test
    void aBareEndSignalReadsTheStoreAndAnExecutionStillRunningKeepsItsWaiters() {
        CompletableFuture<SkailExecution> waiter = this.waiters.await("pedido-1");
        await().until(() -> this.reads.get() >= 1);

        this.waiters.ended("pedido-1", execution(ExecutionStatus.RUNNING, null));
        int afterRunning = awaitReads(2);
        assertThat(waiter).isNotDone();

        this.stored.set(execution(ExecutionStatus.FAILED, null));
        this.waiters.ended("pedido-1");

        await().until(waiter::isDone);
        assertThat(waiter.join().status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(this.reads.get()).isGreaterThan(afterRunning);
    }

    private int awaitReads(int atLeast) {
        await().until(() -> this.reads.get() >= atLeast);
        return this.reads.get();
    }

    private static SkailExecution execution(ExecutionStatus status, String result) {
        Instant at = Instant.parse("2026-12-06T13:15:30Z");
        return new SkailExecution("pedido-1", "vendas", "v1", "processarPedido", status,
                "[{\"total\":150.00}]", result, null, 1, at, at, null, null, null,
                Map.of("pedido", List.of("P-1")));
    }
}
