package dev.skail.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Set;

import dev.skail.SkailAttempt;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailUsageException;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Runs one delivery of the execution a lease holds, then settles it: completed; suspended until a delay, an event,
 * a child or a redelivery; abandoned (given back, nothing counted); a function failure to redeliver (S5); or a
 * failure for good (a divergence, a misuse, retries spent).
 */
final class DeliveryRunner {

    private static final Log logger = LogFactory.getLog(DeliveryRunner.class);

    /** The outcomes of {@link #settle} that end the execution. */
    private static final Set<String> ENDED = Set.of("completed", "failed", "cancelled");

    private final SkailRuntime runtime;

    private final ExecutionStore store;

    DeliveryRunner(SkailRuntime runtime) {
        this.runtime = runtime;
        this.store = runtime.store();
    }

    /** @return whether the delivery's end made no other work due (see {@link #deliver(Lease, StoredHistory, long)}) */
    boolean deliver(Lease lease) {
        return deliver(lease, null, 0);
    }

    /**
     * @param known the history when it is known without reading it: an execution this process has just created
     * claimed has no step yet, or one a claim told (events fired at it meanwhile are read from the store when the
     * function waits for them)
     * @param knownNanos when {@code known} was known ({@link System#nanoTime}); a cancel requested since is asked of
     * the store as a delivery asks every second
     * @return whether the delivery's end made no other work due, so that the worker need not claim for it: its
     * execution, with no parent to wake, ended (completed, failed for good or cancelled) without starting a child.
     * {@code false} for any other end: a suspension, a redelivery, an execution given back or abandoned is due again
     * (now or later), a child started is due, and a parent is woken by its child's end
     */
    boolean deliver(Lease lease, @Nullable StoredHistory known, long knownNanos) {
        this.runtime.deliveryStarted(lease.taskId());
        try {
            return run(lease, known, knownNanos);
        }
        finally {
            this.runtime.deliveryEnded(lease.taskId());
        }
    }

    private boolean run(Lease lease, @Nullable StoredHistory known, long knownNanos) {
        StoredHistory history;
        long historyNanos = knownNanos;
        try {
            if (known != null) {
                history = known;
            }
            else {
                historyNanos = System.nanoTime();
                history = this.store.history(lease.taskId()).orElse(null);
            }
        }
        catch (StoreUnavailableException ex) {
            // nothing ran: give the execution back at once rather than leave it for a whole lease (a statement the
            // store refuses is left to the lease, so that a row it cannot read is not claimed again at every poll)
            logger.warn("skail could not read the history of '" + lease.taskId() + "'; given back: " + ex.getMessage());
            safely(() -> this.store.release(lease, platformMillis()));
            return false;
        }
        if (history == null) {
            return false;
        }
        ExecutionRow execution = history.execution();
        FunctionDefinition definition = this.runtime.catalog().function(execution.function()).orElse(null);
        if (definition == null) {
            failForGood(lease, new SkailNotFoundException("Function '" + execution.function()
                    + "' is not declared in this runtime of " + execution.workload() + ":" + execution.version()));
            return false;
        }
        Object[] arguments;
        try {
            arguments = this.runtime.decodeArguments(definition, execution.arguments());
        }
        catch (RuntimeException ex) {
            failForGood(lease, ex);
            return false;
        }
        Delivery delivery = new Delivery(this.runtime, lease, history, historyNanos);
        long due = (execution.nextRunAt() != null) ? execution.nextRunAt() : execution.updatedAt();
        SkailInstrumentation.Span span = this.runtime.instrumentation().delivery(lease.taskId(), definition.name(),
                Math.max(0, platformMillis() - due));
        Object result = null;
        Throwable failure = null;
        delivery.bind();
        Logs.delivery(lease.taskId(), definition.name());
        try {
            Object bean = this.runtime.bean(definition.beanName());
            Method method = AopUtils.selectInvocableMethod(definition.step().method(), bean.getClass());
            ReflectionUtils.makeAccessible(method);
            result = method.invoke(bean, arguments);
        }
        catch (InvocationTargetException ex) {
            failure = ex.getTargetException();
        }
        catch (ReflectiveOperationException | RuntimeException | Suspension | StackOverflowError ex) {
            failure = ex;
        }
        finally {
            Logs.clear();
            delivery.unbind();
        }
        try {
            delivery.parallel.awaitBranches();
        }
        catch (Suspension ex) {
            // interrupted while async steps were still running: abandoned, not counted (settle sees it)
        }
        delivery.replayEnded();
        String outcome = settle(delivery, definition, result, failure);
        span.end(outcome);
        return ENDED.contains(outcome) && execution.parentTaskId() == null && !delivery.writer.startedChild();
    }


    private String settle(Delivery delivery, FunctionDefinition definition, @Nullable Object result,
            @Nullable Throwable failure) {
        Lease lease = delivery.lease;
        Stop stop = delivery.stop;
        RuntimeException abandoned = stop.abandonCause();
        if (abandoned != null) {
            return abandoned(lease, abandoned);
        }
        if (stop.fatal() == null && stop.stopped()) {
            if (failure == null && stop.thrownIntoFunction() != null) {
                stop.fatal(new SkailUsageException("Function '" + definition.name() + "' returned after skail "
                        + "suspended it (" + stop.reason() + "): the suspension thrown at " + stop.thrownAt()
                        + " was caught and swallowed, so its result cannot be kept. Do not catch Throwable or Error "
                        + "around steps (catch Exception, or rethrow Errors)"));
            }
            else {
                if (failure != null && !(failure instanceof Suspension) && stop.thrownIntoFunction() != null) {
                    logger.error("skail function '" + definition.name() + "' of execution '" + lease.taskId()
                            + "' went on after the runtime suspended it (" + stop.reason() + "); it must not catch "
                            + "Throwable or Error around steps. What it did after that point was not recorded");
                }
                // the PENDING delay or event wait kept back goes to sleep with the suspension, in one write
                List<StepRow> keptBack = delivery.writer.takeKeptBack();
                long now = platformMillis();
                safely(() -> this.store.suspend(lease, keptBack, stop.request(), now, now));
                return "suspended";
            }
        }
        // an end is written after the steps kept back (a delay found due just before the function returned)
        try {
            delivery.writer.flush(platformMillis());
        }
        catch (Suspension ex) {
            RuntimeException cause = stop.abandonCause();
            if (cause != null) {
                return abandoned(lease, cause);
            }
            RuntimeException refused = stop.fatal();
            if (refused != null) {
                failForGood(lease, refused);
                this.runtime.instrumentation().executionEnded(definition.name(), "failed");
                return "failed";
            }
        }
        // an exception before the history is consumed is a function failure (S5), not a divergence: only a step
        // that does not match, or a function that returns early, diverges
        RuntimeException fatal = (failure == null) ? delivery.checkHistoryConsumed() : stop.fatal();
        if (fatal != null) {
            failForGood(lease, fatal);
            this.runtime.instrumentation().executionEnded(definition.name(), "failed");
            return "failed";
        }
        long now = platformMillis();
        if (delivery.history.cancelled() || failure instanceof dev.skail.SkailCancelledException) {
            return cancelled(delivery, definition, result, failure, now);
        }
        if (failure == null) {
            try {
                String recorded = this.runtime.json().write(result);
                // the execution as it ended, when the store's write tells it: its waiters then need not read it
                this.runtime.ended(lease.taskId(),
                        safelyAnswered(() -> this.store.completeAndTell(lease, recorded, now)));
                this.runtime.instrumentation().executionEnded(definition.name(), "completed");
                return "completed";
            }
            catch (JacksonException ex) {
                failure = ex;
            }
        }
        return functionFailed(delivery, definition, failure, now);
    }

    /**
     * The function has ended after seeing its cancellation, whether it returned or threw, or a cancellation left it
     * (a cancelled child's, rethrown): the execution is CANCELLED, not retried. The error kept is what the function threw, or the cancellation when it returned.
     */
    private String cancelled(Delivery delivery, FunctionDefinition definition, @Nullable Object result,
            @Nullable Throwable failure, long now) {
        Lease lease = delivery.lease;
        String resultJson = null;
        if (failure == null) {
            try {
                resultJson = this.runtime.json().write(result);
            }
            catch (JacksonException ex) {
                // the result is not kept; the execution is cancelled all the same
            }
        }
        Throwable cause = (failure != null) ? failure : new dev.skail.SkailCancelledException(lease.taskId(),
                "Execution '" + lease.taskId() + "' (" + definition.name() + ") was cancelled");
        String error = this.runtime.json().writeError(this.runtime.encodeError(cause));
        String recordedResult = resultJson;
        safely(() -> this.store.cancelled(lease, recordedResult, error, now));
        this.runtime.cancelHandled(lease.taskId());
        this.runtime.ended(lease.taskId());
        this.runtime.instrumentation().executionEnded(definition.name(), "cancelled");
        logger.info("skail execution '" + lease.taskId() + "' CANCELLED (function '" + definition.name() + "' "
                + ((failure != null) ? "threw " + failure : "returned") + " after seeing the cancellation)");
        return "cancelled";
    }

    private String abandoned(Lease lease, RuntimeException cause) {
        logger.warn("skail delivery of '" + lease.taskId() + "' abandoned, not counted as an attempt: "
                + cause.getMessage());
        if (!(cause instanceof LeaseLostException)) {
            safely(() -> this.store.release(lease, platformMillis()));
        }
        return "abandoned";
    }

    private String functionFailed(Delivery delivery, FunctionDefinition definition, Throwable failure, long now) {
        Lease lease = delivery.lease;
        ExecutionRow execution = delivery.execution;
        String error = this.runtime.json().writeError(this.runtime.encodeError(failure));
        FailurePolicy.Decision decision = this.runtime.failurePolicy().function(definition.step(),
                execution.retriesUsed());
        int retry = execution.retriesUsed() + 1;
        AttemptRow attempt = new AttemptRow(lease.taskId(), AttemptRow.FUNCTION_POSITION, definition.name(),
                execution.attempt(), retry, execution.updatedAt(), now, SkailAttempt.FAILED, error,
                decision.decision(), decision.backoffMillis());
        this.runtime.instrumentation().attempt(definition.name(), definition.name(), SkailAttempt.FAILED,
                decision.decision());
        if (decision.retry()) {
            long backoff = (decision.backoffMillis() != null) ? decision.backoffMillis() : 0;
            Set<Integer> dropped = delivery.history.failuresToDrop();
            safely(() -> this.store.scheduleFunctionRetry(lease, attempt, dropped, now + backoff, now));
            logger.info("skail function '" + definition.name() + "' of execution '" + lease.taskId() + "' failed ("
                    + failure + "); redelivery " + retry + " of " + definition.step().retryCount() + " in " + backoff
                    + " ms");
            return "retry";
        }
        safely(() -> this.store.fail(lease, error, attempt, now));
        this.runtime.ended(lease.taskId());
        this.runtime.instrumentation().executionEnded(definition.name(), "failed");
        logger.warn("skail execution '" + lease.taskId() + "' FAILED: function '" + definition.name()
                + "' failed and its " + definition.step().retryCount() + " redeliveries are spent", failure);
        return "failed";
    }

    private void failForGood(Lease lease, Throwable cause) {
        logger.error("skail execution '" + lease.taskId() + "' FAILED: " + cause.getMessage());
        String error = this.runtime.json().writeError(this.runtime.encodeError(cause));
        safely(() -> this.store.fail(lease, error, null, platformMillis()));
        this.runtime.ended(lease.taskId());
    }

    private long platformMillis() {
        return this.runtime.platformClock().millis();
    }

    private static void safely(Runnable write) {
        safelyAnswered(() -> {
            write.run();
            return null;
        });
    }

    /** As {@link #safely(Runnable)}, with what the write answers ({@code null} when it could not be confirmed). */
    private static <T> @Nullable T safelyAnswered(java.util.function.Supplier<@Nullable T> write) {
        try {
            return write.get();
        }
        catch (LeaseLostException | StoreUnavailableException | StoreStatementException ex) {
            // a commit whose acknowledgement was lost lands here too (the lease it cleared no longer holds): then the
            // end is recorded; otherwise the execution is delivered again once its lease expires
            logger.warn("skail could not confirm the end of a delivery (" + ex.getMessage() + "); if it was not "
                    + "recorded, the execution is delivered again when its lease expires");
            return null;
        }
    }
}
