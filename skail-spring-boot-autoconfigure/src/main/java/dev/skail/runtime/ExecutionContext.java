package dev.skail.runtime;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import dev.skail.SkailAttempt;
import dev.skail.SkailContext;
import dev.skail.SkailError;
import dev.skail.SkailNonDeterministicException;
import dev.skail.SkailUsageException;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import org.jspecify.annotations.Nullable;

/**
 * One delivery of one execution, bound to the thread that runs it: the replay engine. Each step the function
 * reaches is looked up by its position in the history; recorded, its outcome comes back without running;
 * absent, it runs and is recorded (S1, S2). A failed command attempt schedules a redelivery and unwinds the
 * function (S3); when its attempts are spent, its exception is recorded and thrown at the call (S3, S4).
 */
public final class ExecutionContext implements SkailContext {

    private static final ThreadLocal<ExecutionContext> CURRENT = new ThreadLocal<>();

    private final SkailRuntime runtime;

    private final Lease lease;

    private final ExecutionRow execution;

    private final Map<Integer, StepRow> steps = new HashMap<>();

    private final Map<Integer, Integer> attemptsSoFar = new HashMap<>();

    private final int recordedSteps;

    private int nextPosition;

    private boolean entered;

    private @Nullable CommandScope command;

    private @Nullable RuntimeException fatal;

    private @Nullable String stopReason;

    private @Nullable RuntimeException abandonCause;

    ExecutionContext(SkailRuntime runtime, Lease lease, StoredHistory history) {
        this.runtime = runtime;
        this.lease = lease;
        this.execution = history.execution();
        for (StepRow step : history.steps()) {
            this.steps.put(step.position(), step);
        }
        this.recordedSteps = history.steps().size();
        for (AttemptRow attempt : history.attempts()) {
            if (attempt.functionAttempt() == this.execution.attempt()) {
                this.attemptsSoFar.merge(attempt.position(), 1, Integer::sum);
            }
        }
    }

    /** The execution running on this thread, if any. */
    public static @Nullable ExecutionContext current() {
        return CURRENT.get();
    }

    /** The context of the execution running on this thread; throws outside one. */
    public static SkailContext requireView() {
        ExecutionContext context = CURRENT.get();
        if (context == null) {
            throw new IllegalStateException("No skail execution is running on this thread: SkailContext is "
                    + "available inside a @SkailFunction and the @SkailCommand methods it calls");
        }
        return context;
    }

    void bind() {
        CURRENT.set(this);
    }

    void unbind() {
        CURRENT.remove();
    }

    Object onCall(StepMethod step, Object[] args, Invocation invocation) throws Throwable {
        if (this.command != null) {
            throw usage(step, "@SkailCommand " + this.command.step.describe() + " called "
                    + (step.function() ? "@SkailFunction " : "@SkailCommand ") + step.describe()
                    + ": commands do not call commands or functions; only a function composes steps. "
                    + "To reuse logic inside a command, call a plain method without annotation");
        }
        if (step.function()) {
            if (!this.entered) {
                this.entered = true;
                return invocation.proceed();
            }
            throw usage(step, "@SkailFunction " + step.describe() + " was called from the function "
                    + this.execution.function() + ": child executions are not supported yet; trigger it with "
                    + "SkailClient from a command, or call a plain method");
        }
        return onCommand(step, args, invocation);
    }

    private Object onCommand(StepMethod step, Object[] args, Invocation invocation) throws Throwable {
        checkRunnable();
        int position = this.nextPosition++;
        StepRow recorded = this.steps.get(position);
        if (recorded != null) {
            if (!StepRow.COMMAND.equals(recorded.kind()) || !recorded.name().equals(step.name())) {
                throw diverge(position, "the history has " + recorded.kind() + " '" + recorded.name()
                        + "' there, but the function now calls COMMAND '" + step.name() + "' (" + step.describe() + ")");
            }
            if (StepRow.COMPLETED.equals(recorded.status())) {
                return this.runtime.json().read(recorded.result(), step.method().getGenericReturnType());
            }
            SkailError error = this.runtime.json().readError(recorded.error());
            throw RecordedFailure.rebuild(error, step.method().getDeclaringClass().getClassLoader());
        }
        return runCommand(step, position, args, invocation);
    }

    private Object runCommand(StepMethod step, int position, Object[] args, Invocation invocation) throws Throwable {
        SkailJson json = this.runtime.json();
        String key = idempotencyKey(this.execution.taskId(), position);
        int attempt = this.attemptsSoFar.getOrDefault(position, 0) + 1;
        long started = this.runtime.clock().millis();
        String argumentsJson = "[]";
        String resultJson;
        this.command = new CommandScope(step, key, attempt);
        try {
            argumentsJson = json.write(args);
            Object value = invocation.proceed();
            resultJson = json.write(value);
        }
        catch (Suspension | VirtualMachineError ex) {
            throw ex;
        }
        catch (Throwable failure) {
            this.command = null;
            throw commandFailed(step, position, key, attempt, started, argumentsJson, failure);
        }
        finally {
            this.command = null;
        }
        long ended = this.runtime.clock().millis();
        StepRow row = new StepRow(this.execution.taskId(), position, StepRow.COMMAND, step.name(), argumentsJson,
                StepRow.COMPLETED, resultJson, null, key, this.execution.attempt(), started, ended);
        AttemptRow attemptRow = new AttemptRow(this.execution.taskId(), position, step.name(), this.execution.attempt(),
                attempt,
                started, ended, SkailAttempt.SUCCEEDED, null, SkailAttempt.RECORDED, null);
        record(() -> this.runtime.store().recordStep(this.lease, row, attemptRow, ended, this.runtime.leaseUntil()));
        this.steps.put(position, row);
        // what the function gets is what a replay will get: the recorded JSON read back
        return json.read(resultJson, step.method().getGenericReturnType());
    }

    private Throwable commandFailed(StepMethod step, int position, String key, int attempt, long started,
            String argumentsJson, Throwable failure) {
        if (this.fatal != null) {
            return this.fatal;
        }
        if (this.runtime.isStopping()) {
            return abandon(new IllegalStateException("the runtime is shutting down", failure));
        }
        long ended = this.runtime.clock().millis();
        String error = this.runtime.json().writeError(RecordedFailure.of(failure));
        String taskId = this.execution.taskId();
        if (attempt <= step.retryCount()) {
            long backoff = this.runtime.backoffMillis(attempt);
            AttemptRow row = new AttemptRow(taskId, position, step.name(), this.execution.attempt(), attempt, started,
                    ended, SkailAttempt.FAILED, error, SkailAttempt.RETRY, backoff);
            record(() -> this.runtime.store().scheduleRetry(this.lease, row, ended + backoff, ended));
            return stop("command '" + step.name() + "' failed (attempt " + attempt + " of " + (step.retryCount() + 1)
                    + "); redelivery in " + backoff + " ms");
        }
        AttemptRow row = new AttemptRow(taskId, position, step.name(), this.execution.attempt(), attempt, started,
                ended, SkailAttempt.FAILED, error, SkailAttempt.GIVE_UP, null);
        StepRow step0 = new StepRow(taskId, position, StepRow.COMMAND, step.name(), argumentsJson, StepRow.FAILED, null,
                error, key, this.execution.attempt(), started, ended);
        record(() -> this.runtime.store().recordStep(this.lease, step0, row, ended, this.runtime.leaseUntil()));
        this.steps.put(position, step0);
        return failure;
    }

    private void checkRunnable() {
        if (this.fatal != null) {
            throw this.fatal;
        }
        if (this.stopReason != null) {
            throw new Suspension(this.stopReason);
        }
    }

    private SkailUsageException usage(StepMethod step, String message) {
        SkailUsageException ex = new SkailUsageException(message);
        if (this.fatal == null) {
            this.fatal = ex;
        }
        return ex;
    }

    private SkailNonDeterministicException diverge(int position, String detail) {
        SkailNonDeterministicException ex = new SkailNonDeterministicException(this.execution.taskId(), position,
                "Replay of execution '" + this.execution.taskId() + "' (" + this.execution.function()
                        + ") diverged from its history at step " + position + ": " + detail
                        + ". The function must reach the same steps in the same order on every replay: move clocks, "
                        + "randomness and I/O into commands, and version the workload when the sequence of steps changes");
        if (this.fatal == null) {
            this.fatal = ex;
        }
        return ex;
    }

    /** Checks, once the function has ended, that it reached every recorded step (S10). */
    @Nullable RuntimeException checkHistoryConsumed() {
        if (this.fatal == null && this.stopReason == null && this.nextPosition < this.recordedSteps) {
            StepRow first = this.steps.get(this.nextPosition);
            diverge(this.nextPosition, "the function ended after " + this.nextPosition + " step(s), but the history "
                    + "holds " + this.recordedSteps + "; step " + this.nextPosition + " is " + first.kind() + " '"
                    + first.name() + "'");
        }
        return this.fatal;
    }

    private Suspension stop(String reason) {
        this.stopReason = reason;
        return new Suspension(reason);
    }

    private Suspension abandon(RuntimeException cause) {
        this.abandonCause = cause;
        return stop("delivery abandoned: " + cause.getMessage());
    }

    private void record(Runnable write) {
        try {
            write.run();
        }
        catch (LeaseLostException | StoreUnavailableException ex) {
            throw abandon(ex);
        }
    }

    @Nullable RuntimeException fatal() {
        return this.fatal;
    }

    boolean stopped() {
        return this.stopReason != null;
    }

    @Nullable String stopReason() {
        return this.stopReason;
    }

    @Nullable RuntimeException abandonCause() {
        return this.abandonCause;
    }

    Lease lease() {
        return this.lease;
    }

    ExecutionRow execution() {
        return this.execution;
    }

    static String idempotencyKey(String taskId, int position) {
        return UUID.nameUUIDFromBytes(("skail:" + taskId + ":" + position).getBytes(StandardCharsets.UTF_8)).toString();
    }

    @Override
    public String taskId() {
        return this.execution.taskId();
    }

    @Override
    public String workload() {
        return this.execution.workload();
    }

    @Override
    public String version() {
        return this.execution.version();
    }

    @Override
    public String functionName() {
        return this.execution.function();
    }

    @Override
    public int attempt() {
        CommandScope scope = this.command;
        return (scope != null) ? scope.attempt : this.execution.attempt();
    }

    @Override
    public boolean isReplaying() {
        return this.command == null && this.nextPosition < this.recordedSteps;
    }

    @Override
    public @Nullable String commandName() {
        CommandScope scope = this.command;
        return (scope != null) ? scope.step.name() : null;
    }

    @Override
    public String idempotencyKey() {
        CommandScope scope = this.command;
        if (scope == null) {
            throw new IllegalStateException("An idempotency key belongs to a command step: call "
                    + "SkailContext.current().idempotencyKey() inside a @SkailCommand");
        }
        return scope.key;
    }

    @FunctionalInterface
    interface Invocation {

        Object proceed() throws Throwable;
    }

    private record CommandScope(StepMethod step, String key, int attempt) {
    }
}
