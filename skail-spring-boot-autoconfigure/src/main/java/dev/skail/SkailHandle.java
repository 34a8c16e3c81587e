package dev.skail;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A caller's handle on one execution: what {@link SkailClient#trigger} returns, and {@link SkailClient#handle} gives
 * again by id. Its result is read with the function's declared return type (or the type given to
 * {@link SkailClient#handle}).
 * <p>
 * Waiting holds no polling loop per caller: the runtime signals the end of an execution in this process when its
 * worker ends it, and on PostgreSQL other instances signal it through a notification; a waiter also reads the store
 * once when it starts waiting and then every few seconds as a safety net.
 * <p>
 * The outcomes: a COMPLETED execution gives its result ({@code null} for a {@code void} function); a FAILED one is a
 * {@link SkailExecutionFailedException} carrying the recorded {@link SkailError}; a CANCELLED one is a
 * {@link SkailExecutionCancelledException}; an execution that no longer exists (deleted by retention) is a
 * {@link SkailNotFoundException}.
 *
 * @param <T> the function's return type ({@code Void} or {@code Object} for a {@code void} function)
 */
public interface SkailHandle<T> {

    /** The execution's id. */
    String taskId();

    /**
     * The execution as the call that made this handle saw it: as triggered (or found, when the id existed) for
     * {@link SkailClient#trigger}, as found for {@link SkailClient#handle}. What {@code trigger} returned before it
     * returned handles.
     */
    SkailExecution execution();

    /** The execution as the store holds it now (one read). */
    SkailExecution current();

    /**
     * Waits as long as it takes for the execution to end and returns the function's result.
     * @throws SkailExecutionFailedException if it ended FAILED
     * @throws SkailExecutionCancelledException if it ended CANCELLED
     * @throws SkailNotFoundException if it no longer exists
     * @throws java.util.concurrent.CancellationException if the waiting thread is interrupted (its interrupt flag is
     * set again)
     */
    @Nullable T result();

    /**
     * Waits at most {@code timeout} for the execution to end and returns the function's result.
     * @throws SkailTimeoutException if it has not ended within {@code timeout} (it goes on running; nothing changes)
     * @throws SkailExecutionFailedException if it ended FAILED
     * @throws SkailExecutionCancelledException if it ended CANCELLED
     * @throws SkailNotFoundException if it no longer exists
     */
    @Nullable T result(Duration timeout);

    /**
     * Waits at most {@code timeout} for the execution to end and returns it as it stands then, ended or not: the way
     * to answer "the result if it is ready soon, else 202" without an exception.
     * @throws SkailNotFoundException if it no longer exists
     */
    SkailExecution await(Duration timeout);

    /**
     * The result, once the execution ends; no thread waits meanwhile. The future completes exceptionally with the
     * exceptions {@link #result()} throws. Cancelling the future stops waiting (not the execution).
     */
    CompletableFuture<@Nullable T> resultAsync();
}
