package dev.skail.runtime;

import java.util.Objects;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailError;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.StepRow;

/**
 * A {@code @SkailCommand} call as a step: recorded, its outcome comes back without running (S1, S2); absent, it
 * runs, and its result, or its failure once its attempts are spent, is recorded (S3, S4, S19). A failed attempt to
 * retry is recorded and unwinds the function for a redelivery with backoff. What the function gets is what every
 * replay will get: the recorded result read back, the recorded exception rebuilt.
 */
final class CommandStep {

    private final Delivery delivery;

    CommandStep(Delivery delivery) {
        this.delivery = delivery;
    }

    Object call(StepMethod step, Object[] args, Delivery.Invocation invocation) throws Throwable {
        this.delivery.checkRunnable();
        int position = this.delivery.position();
        StepRow recorded = this.delivery.expect(position, StepRow.COMMAND, step.name(), null, step.describe());
        if (recorded != null) {
            return outcome(recorded, step);
        }
        this.delivery.requireRecording(position, step.name());
        return run(step, position, args, invocation);
    }

    /** The recorded outcome: the result read back with the declared type, or the exception rebuilt and thrown. */
    Object outcome(StepRow recorded, StepMethod step) throws Throwable {
        SkailRuntime runtime = this.delivery.runtime;
        if (StepRow.COMPLETED.equals(recorded.status())) {
            return runtime.json().read(recorded.result(), step.method().getGenericReturnType());
        }
        SkailError error = Objects.requireNonNull(runtime.json().readError(recorded.error()));
        Throwable rebuilt = runtime.decodeError(error, step.method().getDeclaringClass().getClassLoader());
        this.delivery.history.thrown(rebuilt, recorded.position());
        this.delivery.seen(rebuilt);
        throw rebuilt;
    }

    private Object run(StepMethod step, int position, Object[] args, Delivery.Invocation invocation)
            throws Throwable {
        SkailRuntime runtime = this.delivery.runtime;
        String key = this.delivery.key(position);
        int attempt = this.delivery.history.attemptsSoFar(position) + 1;
        long started = this.delivery.millis();
        String arguments = "[]";
        Delivery.Frame frame = this.delivery.frame();
        frame.command = new Delivery.CommandScope(step, key, attempt);
        SkailInstrumentation.Span span = runtime.instrumentation().command(this.delivery.taskId(),
                this.delivery.functionName(), step.name());
        Logs.command(step.name());
        Object value;
        try {
            arguments = runtime.json().write(args);
            value = invocation.proceed();
        }
        catch (Suspension | VirtualMachineError ex) {
            span.end("suspended");
            throw ex;
        }
        catch (Throwable failure) {
            frame.command = null;
            span.end("failure");
            throw failed(step, position, key, attempt, started, arguments, failure);
        }
        finally {
            frame.command = null;
            Logs.commandEnded();
        }
        span.end("success");
        String result;
        try {
            result = runtime.json().write(value);
        }
        catch (RuntimeException ex) {
            // the command did its work: running it again would repeat the effect, and fail the same way
            throw this.delivery.usage("The result of @SkailCommand " + step.describe() + " cannot be written as "
                    + "JSON, so it cannot be recorded: " + ex.getMessage() + ". Return a type Jackson can write "
                    + "(a record, a DTO)");
        }
        runtime.instrumentation().attempt(this.delivery.functionName(), step.name(), SkailAttempt.SUCCEEDED,
                SkailAttempt.RECORDED);
        long ended = this.delivery.millis();
        int functionAttempt = this.delivery.execution.attempt();
        StepRow row = new StepRow(this.delivery.taskId(), position, StepRow.COMMAND, step.name(), arguments,
                StepRow.COMPLETED, result, null, key, functionAttempt, started, ended, null);
        AttemptRow attemptRow = new AttemptRow(this.delivery.taskId(), position, step.name(), functionAttempt, attempt,
                started, ended, SkailAttempt.SUCCEEDED, null, SkailAttempt.RECORDED, null);
        this.delivery.writer.step(row, attemptRow, ended);
        // what the function gets is what a replay will get: the recorded JSON read back
        return runtime.json().read(result, step.method().getGenericReturnType());
    }

    private Throwable failed(StepMethod step, int position, String key, int attempt, long started, String arguments,
            Throwable failure) {
        RuntimeException fatal = this.delivery.stop.fatal();
        if (fatal != null) {
            return fatal;
        }
        SkailRuntime runtime = this.delivery.runtime;
        if (runtime.isStopping()) {
            return this.delivery.stop.abandon(new IllegalStateException("the runtime is shutting down", failure));
        }
        long ended = this.delivery.millis();
        SkailError encoded = runtime.encodeError(failure);
        String error = runtime.json().writeError(encoded);
        FailurePolicy.Decision decision = runtime.failurePolicy().command(step, attempt, failure);
        String taskId = this.delivery.taskId();
        int functionAttempt = this.delivery.execution.attempt();
        AttemptRow attemptRow = new AttemptRow(taskId, position, step.name(), functionAttempt, attempt, started, ended,
                SkailAttempt.FAILED, error, decision.decision(), decision.backoffMillis());
        runtime.instrumentation().attempt(this.delivery.functionName(), step.name(), SkailAttempt.FAILED,
                decision.decision());
        if (decision.retry()) {
            this.delivery.writer.attempt(attemptRow, ended);
            long due = ended + Objects.requireNonNull(decision.backoffMillis());
            return this.delivery.stop.suspend(ExecutionStatus.PENDING, due, null, null, "command '" + step.name()
                    + "' failed (attempt " + attempt + " of " + (step.retryCount() + 1) + "); redelivery in "
                    + decision.backoffMillis() + " ms");
        }
        StepRow failed = new StepRow(taskId, position, StepRow.COMMAND, step.name(), arguments, StepRow.FAILED, null,
                error, key, functionAttempt, started, ended, null);
        this.delivery.writer.step(failed, attemptRow, ended);
        // the function sees on its first run what every replay will rebuild from the history
        Throwable rebuilt = runtime.decodeError(encoded, step.method().getDeclaringClass().getClassLoader());
        this.delivery.history.thrown(rebuilt, position);
        this.delivery.seen(rebuilt);
        return rebuilt;
    }
}
