package dev.skail.runtime;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.skail.ExecutionStatus;
import dev.skail.SkailError;
import dev.skail.SkailExecution;
import dev.skail.SkailExecutionCancelledException;
import dev.skail.SkailExecutionFailedException;
import dev.skail.SkailHandle;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailTimeoutException;
import org.jspecify.annotations.Nullable;

/** A {@link SkailHandle} of the embedded platform: it waits through the runtime's {@link ResultWaiters}. */
final class DefaultSkailHandle<T> implements SkailHandle<T> {

    private final SkailRuntime runtime;

    private final SkailExecution execution;

    private final Type resultType;

    DefaultSkailHandle(SkailRuntime runtime, SkailExecution execution, Type resultType) {
        this.runtime = runtime;
        this.execution = execution;
        this.resultType = resultType;
    }

    @Override
    public String taskId() {
        return this.execution.taskId();
    }

    @Override
    public SkailExecution execution() {
        return this.execution;
    }

    @Override
    public SkailExecution current() {
        return this.runtime.find(taskId())
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId() + "'"));
    }

    @Override
    public @Nullable T result() {
        return outcome(ended(null));
    }

    @Override
    public @Nullable T result(Duration timeout) {
        SkailExecution ended = ended(timeout);
        if (!ended.status().isTerminal()) {
            throw new SkailTimeoutException(ended, timeout);
        }
        return outcome(ended);
    }

    @Override
    public SkailExecution await(Duration timeout) {
        return ended(timeout);
    }

    @Override
    public CompletableFuture<@Nullable T> resultAsync() {
        CompletableFuture<SkailExecution> waiting = this.runtime.awaitEnd(taskId());
        CompletableFuture<@Nullable T> result = new CompletableFuture<>();
        waiting.whenComplete((ended, failure) -> {
            if (failure != null) {
                result.completeExceptionally(failure);
                return;
            }
            try {
                result.complete(outcome(ended));
            }
            catch (RuntimeException ex) {
                result.completeExceptionally(ex);
            }
        });
        result.whenComplete((value, failure) -> {
            if (result.isCancelled()) {
                waiting.cancel(false);
            }
        });
        return result;
    }

    /**
     * The execution once it has ended, or as it stands when the timeout (if any) runs out.
     */
    private SkailExecution ended(@Nullable Duration timeout) {
        CompletableFuture<SkailExecution> waiting = this.runtime.awaitEnd(taskId());
        try {
            return (timeout != null) ? waiting.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS)
                    : waiting.get();
        }
        catch (TimeoutException ex) {
            return current();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            CancellationException interrupted = new CancellationException(
                    "Interrupted while waiting for execution '" + taskId() + "'");
            interrupted.initCause(ex);
            throw interrupted;
        }
        catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(ex.getCause());
        }
        finally {
            waiting.cancel(false);
        }
    }

    @SuppressWarnings("unchecked")
    private @Nullable T outcome(SkailExecution ended) {
        if (ended.status() == ExecutionStatus.COMPLETED) {
            if (this.resultType == void.class || this.resultType == Void.class) {
                return null;
            }
            return (T) this.runtime.json().readView(ended.result(), this.resultType,
                    "the result of execution '" + ended.taskId() + "'");
        }
        if (ended.status() == ExecutionStatus.FAILED) {
            SkailError error = ended.error();
            throw new SkailExecutionFailedException(ended, (error != null) ? error
                    : new SkailError("unknown", "no error was recorded", null, null, null));
        }
        // the only other end: CANCELLED
        throw new SkailExecutionCancelledException(ended);
    }
}
