package dev.skail.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailContext;
import dev.skail.SkailError;
import dev.skail.SkailNonDeterministicException;
import dev.skail.SkailTask;
import dev.skail.SkailUsageException;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One delivery of one execution: the replay engine. Each step the function reaches is looked up by its position in
 * the history; recorded, its outcome comes back without running; absent, it runs and is recorded (S1, S2). A failed
 * command attempt is recorded and the function is unwound for a redelivery (S3); when its attempts are spent, its
 * exception is recorded and thrown at the call (S3, S4). Delays, event waits and children that are not ready unwind
 * the function the same way: the execution hibernates and no thread waits (S6, S7, S9).
 * <p>
 * The function runs on one thread; steps started with {@link #async} run on threads of their own, each bound to the
 * position reserved for it when {@code async} was called (S8).
 */
public final class ExecutionContext implements SkailContext {

    private static final ThreadLocal<ExecutionContext> CURRENT = new ThreadLocal<>();

    private static final String DELAY = "delay";

    private final SkailRuntime runtime;

    private final Lease lease;

    private final ExecutionRow execution;

    private final Map<Integer, StepRow> steps = new ConcurrentHashMap<>();

    private final Map<Integer, Integer> attemptsSoFar = new ConcurrentHashMap<>();

    private final int lastRecordedPosition;

    /** The furthest position an earlier delivery reached: its last recorded step, or a step it attempted. */
    private final int lastReachedPosition;

    private final AtomicInteger nextPosition = new AtomicInteger();

    private final AtomicInteger settleOrder = new AtomicInteger();

    private final ThreadLocal<Frame> frame = ThreadLocal.withInitial(Frame::new);

    private final List<Task<?>> branches = new CopyOnWriteArrayList<>();

    /** The exceptions of failed command steps thrown into the function, by identity, with their positions. */
    private final Map<Throwable, Integer> thrownFailures = java.util.Collections
        .synchronizedMap(new java.util.IdentityHashMap<>());

    private volatile boolean entered;

    private volatile int endOfHistory = -1;

    private final long startedNanos = System.nanoTime();

    private volatile boolean replayReported;

    private volatile @Nullable RuntimeException fatal;

    private volatile @Nullable String stopReason;

    private volatile @Nullable RuntimeException abandonCause;

    private ExecutionStatus suspendStatus = ExecutionStatus.WAITING;

    private @Nullable Long suspendUntil;

    private final Set<String> awaitedEvents = new LinkedHashSet<>();

    private final Set<String> awaitedChildren = new LinkedHashSet<>();

    ExecutionContext(SkailRuntime runtime, Lease lease, StoredHistory history) {
        this.runtime = runtime;
        this.lease = lease;
        this.execution = history.execution();
        int last = -1;
        for (StepRow step : history.steps()) {
            this.steps.put(step.position(), step);
            last = Math.max(last, step.position());
        }
        this.lastRecordedPosition = last;
        int reached = last;
        for (AttemptRow attempt : history.attempts()) {
            reached = Math.max(reached, attempt.position());
        }
        this.lastReachedPosition = reached;
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
        this.frame.remove();
    }

    // ---------------------------------------------------------------- calls of annotated methods

    Object onCall(StepMethod step, Object[] args, Invocation invocation) throws Throwable {
        requireFunctionCode(step.function() ? "@SkailFunction " + step.describe() : "@SkailCommand " + step.describe());
        if (step.function()) {
            if (!this.entered) {
                this.entered = true;
                return invocation.proceed();
            }
            return child(step, args);
        }
        return command(step, args, invocation);
    }

    private Object command(StepMethod step, Object[] args, Invocation invocation) throws Throwable {
        checkRunnable();
        int position = position();
        StepRow recorded = expect(position, StepRow.COMMAND, step.name(), null, step.describe());
        if (recorded != null) {
            return outcome(recorded, step);
        }
        requireRecording(position, step.name());
        return runCommand(step, position, args, invocation);
    }

    private Object runCommand(StepMethod step, int position, Object[] args, Invocation invocation) throws Throwable {
        SkailJson json = this.runtime.json();
        String key = idempotencyKey(this.execution.taskId(), position);
        int attempt = this.attemptsSoFar.getOrDefault(position, 0) + 1;
        long started = millis();
        String argumentsJson = "[]";
        String resultJson;
        Frame frame = this.frame.get();
        frame.command = new CommandScope(step, key, attempt);
        SkailInstrumentation.Span span = this.runtime.instrumentation().command(taskId(), functionName(), step.name());
        Logs.command(step.name());
        Object value;
        try {
            argumentsJson = json.write(args);
            value = invocation.proceed();
        }
        catch (Suspension | VirtualMachineError ex) {
            span.end("suspended");
            throw ex;
        }
        catch (Throwable failure) {
            frame.command = null;
            span.end("failure");
            throw commandFailed(step, position, key, attempt, started, argumentsJson, failure);
        }
        finally {
            frame.command = null;
            Logs.commandEnded();
        }
        span.end("success");
        try {
            resultJson = json.write(value);
        }
        catch (RuntimeException ex) {
            // the command did its work: running it again would repeat the effect, and fail the same way
            throw usage("The result of @SkailCommand " + step.describe() + " cannot be written as JSON, so it cannot "
                    + "be recorded: " + ex.getMessage() + ". Return a type Jackson can write (a record, a DTO)");
        }
        this.runtime.instrumentation().attempt(functionName(), step.name(), SkailAttempt.SUCCEEDED,
                SkailAttempt.RECORDED);
        long ended = millis();
        StepRow row = new StepRow(taskId(), position, StepRow.COMMAND, step.name(), argumentsJson, StepRow.COMPLETED,
                resultJson, null, key, this.execution.attempt(), started, ended, null);
        AttemptRow attemptRow = new AttemptRow(taskId(), position, step.name(), this.execution.attempt(), attempt,
                started, ended, SkailAttempt.SUCCEEDED, null, SkailAttempt.RECORDED, null);
        record(() -> this.runtime.store().recordStep(this.lease, row, attemptRow, ended, this.runtime.leaseUntil()));
        this.steps.put(position, row);
        // what the function gets is what a replay will get: the recorded JSON read back
        return json.read(resultJson, step.method().getGenericReturnType());
    }

    private Throwable commandFailed(StepMethod step, int position, String key, int attempt, long started,
            String argumentsJson, Throwable failure) {
        RuntimeException fatal = this.fatal;
        if (fatal != null) {
            return fatal;
        }
        if (this.runtime.isStopping()) {
            return abandon(new IllegalStateException("the runtime is shutting down", failure));
        }
        long ended = millis();
        String error = this.runtime.json().writeError(RecordedFailure.of(failure));
        boolean definitive = step.isDefinitive(failure);
        if (attempt <= step.retryCount() && !definitive) {
            long backoff = this.runtime.backoffMillis(step, attempt);
            AttemptRow row = new AttemptRow(taskId(), position, step.name(), this.execution.attempt(), attempt, started,
                    ended, SkailAttempt.FAILED, error, SkailAttempt.RETRY, backoff);
            record(() -> this.runtime.store().recordAttempt(this.lease, row, ended, this.runtime.leaseUntil()));
            this.runtime.instrumentation().attempt(functionName(), step.name(), SkailAttempt.FAILED, SkailAttempt.RETRY);
            return suspend(ExecutionStatus.PENDING, ended + backoff, null, null, "command '" + step.name()
                    + "' failed (attempt " + attempt + " of " + (step.retryCount() + 1) + "); redelivery in "
                    + backoff + " ms");
        }
        AttemptRow row = new AttemptRow(taskId(), position, step.name(), this.execution.attempt(), attempt, started,
                ended, SkailAttempt.FAILED, error, definitive ? SkailAttempt.NOT_RETRYABLE : SkailAttempt.GIVE_UP, null);
        StepRow failed = new StepRow(taskId(), position, StepRow.COMMAND, step.name(), argumentsJson, StepRow.FAILED,
                null, error, key, this.execution.attempt(), started, ended, null);
        record(() -> this.runtime.store().recordStep(this.lease, failed, row, ended, this.runtime.leaseUntil()));
        this.steps.put(position, failed);
        this.runtime.instrumentation().attempt(functionName(), step.name(), SkailAttempt.FAILED, row.decision());
        this.thrownFailures.put(failure, position);
        return failure;
    }

    /** S9: a function called from a function starts a child execution and hibernates until it ends. */
    private Object child(StepMethod step, Object[] args) throws Throwable {
        checkRunnable();
        int position = position();
        StepRow recorded = expect(position, StepRow.CHILD, step.name(), null, step.describe());
        if (recorded != null && !StepRow.PENDING.equals(recorded.status())) {
            return outcome(recorded, step);
        }
        String childId = childTaskId(taskId(), position);
        if (recorded == null) {
            requireRecording(position, step.name());
            long now = millis();
            String arguments = this.runtime.json().write(args);
            StepRow pending = new StepRow(taskId(), position, StepRow.CHILD, step.name(), arguments, StepRow.PENDING,
                    null, null, idempotencyKey(taskId(), position), this.execution.attempt(), now, now, childId);
            ExecutionRow child = new ExecutionRow(childId, this.execution.workload(), this.execution.version(),
                    step.name(), arguments, ExecutionStatus.PENDING, null, null, 1, 0, now, now, now, taskId());
            record(() -> this.runtime.store().startChild(this.lease, pending, child, now, this.runtime.leaseUntil()));
            this.steps.put(position, pending);
            throw suspend(ExecutionStatus.WAITING, null, null, childId, "waiting for child execution '" + childId + "'");
        }
        ExecutionRow child;
        try {
            child = this.runtime.store().find(childId).orElse(null);
        }
        catch (LeaseLostException | StoreUnavailableException ex) {
            throw abandon(ex);
        }
        if (child == null || !child.status().isTerminal()) {
            throw suspend(ExecutionStatus.WAITING, null, null, childId, "waiting for child execution '" + childId + "'");
        }
        long now = millis();
        boolean completed = child.status() == ExecutionStatus.COMPLETED;
        StepRow done = new StepRow(taskId(), position, StepRow.CHILD, step.name(), recorded.arguments(),
                completed ? StepRow.COMPLETED : StepRow.FAILED, completed ? child.result() : null,
                completed ? null : child.error(), recorded.idempotencyKey(), recorded.functionAttempt(),
                recorded.startedAt(), now, childId);
        record(() -> this.runtime.store().recordStep(this.lease, done, null, now, this.runtime.leaseUntil()));
        this.steps.put(position, done);
        return outcome(done, step);
    }

    private Object outcome(StepRow recorded, StepMethod step) throws Throwable {
        if (StepRow.COMPLETED.equals(recorded.status())) {
            return this.runtime.json().read(recorded.result(), step.method().getGenericReturnType());
        }
        SkailError error = Objects.requireNonNull(this.runtime.json().readError(recorded.error()));
        Throwable rebuilt = RecordedFailure.rebuild(error, step.method().getDeclaringClass().getClassLoader());
        if (StepRow.COMMAND.equals(recorded.kind())) {
            this.thrownFailures.put(rebuilt, recorded.position());
        }
        throw rebuilt;
    }

    // ---------------------------------------------------------------- primitives

    /** S6: records the delay, hibernates until it is due. */
    public void delay(Duration duration) {
        requireFunctionCode("Skail.delay");
        checkRunnable();
        int position = position();
        String arguments = "[" + duration.toMillis() + "]";
        StepRow recorded = expect(position, StepRow.DELAY, DELAY, arguments, "Skail.delay(" + duration + ")");
        long now = millis();
        if (recorded == null) {
            requireRecording(position, DELAY);
            long due = now + duration.toMillis();
            boolean elapsed = due <= now;
            StepRow step = new StepRow(taskId(), position, StepRow.DELAY, DELAY, arguments,
                    elapsed ? StepRow.COMPLETED : StepRow.PENDING, Long.toString(due), null,
                    idempotencyKey(taskId(), position), this.execution.attempt(), now, now, null);
            record(() -> this.runtime.store().recordStep(this.lease, step, null, now, this.runtime.leaseUntil()));
            this.steps.put(position, step);
            if (!elapsed) {
                throw suspend(ExecutionStatus.WAITING, due, null, null, "delay until " + Instant.ofEpochMilli(due));
            }
            return;
        }
        if (StepRow.COMPLETED.equals(recorded.status())) {
            return;
        }
        long due = Long.parseLong(Objects.requireNonNull(recorded.result()));
        if (due > now) {
            throw suspend(ExecutionStatus.WAITING, due, null, null, "delay until " + Instant.ofEpochMilli(due));
        }
        StepRow done = completed(recorded, recorded.result(), now);
        record(() -> this.runtime.store().recordStep(this.lease, done, null, now, this.runtime.leaseUntil()));
        this.steps.put(position, done);
    }

    /** S7: the payload of the next event of this name, waiting for it (hibernating) when none is kept. */
    public <T> Optional<T> waitForEvent(String name, Class<T> type, @Nullable Duration timeout) {
        requireFunctionCode("Skail.waitForEvent");
        if (name.isBlank() || name.length() > 200) {
            throw usage("Skail.waitForEvent needs an event name of 1 to 200 characters, not '" + name + "'");
        }
        checkRunnable();
        int position = position();
        String arguments = (timeout != null) ? "[" + timeout.toMillis() + "]" : "[]";
        StepRow recorded = expect(position, StepRow.EVENT, name, null, "Skail.waitForEvent(\"" + name + "\")");
        if (recorded != null && !StepRow.PENDING.equals(recorded.status())) {
            return eventOutcome(recorded, type);
        }
        requireRecording(position, name);
        long now = millis();
        long startedAt = (recorded != null) ? recorded.startedAt() : now;
        String key = idempotencyKey(taskId(), position);
        SkailJson json = this.runtime.json();
        Optional<dev.skail.platform.EventRow> taken = recording(() -> this.runtime.store().takeEvent(this.lease, name,
                (event) -> new StepRow(taskId(), position, StepRow.EVENT, name, arguments, StepRow.COMPLETED,
                        eventResult(event.payload(), event.id()), null, key, this.execution.attempt(), startedAt, now,
                        null),
                now, this.runtime.leaseUntil()));
        if (taken.isPresent()) {
            StepRow done = new StepRow(taskId(), position, StepRow.EVENT, name, arguments, StepRow.COMPLETED,
                    eventResult(taken.get().payload(), taken.get().id()), null, key, this.execution.attempt(), startedAt,
                    now, null);
            this.steps.put(position, done);
            return eventOutcome(done, type);
        }
        Long due = (timeout != null) ? startedAt + timeout.toMillis() : null;
        if (due != null && due <= now) {
            StepRow timedOut = new StepRow(taskId(), position, StepRow.EVENT, name, arguments, StepRow.COMPLETED,
                    "{\"timedOut\":true}", null, key, this.execution.attempt(), startedAt, now, null);
            record(() -> this.runtime.store().recordStep(this.lease, timedOut, null, now, this.runtime.leaseUntil()));
            this.steps.put(position, timedOut);
            return Optional.empty();
        }
        if (recorded == null) {
            StepRow pending = new StepRow(taskId(), position, StepRow.EVENT, name, arguments, StepRow.PENDING,
                    (due != null) ? "{\"due\":" + due + "}" : null, null, key, this.execution.attempt(), now, now, null);
            record(() -> this.runtime.store().recordStep(this.lease, pending, null, now, this.runtime.leaseUntil()));
            this.steps.put(position, pending);
        }
        throw suspend(ExecutionStatus.WAITING, due, name, null, "waiting for event '" + name + "'");
    }

    private String eventResult(@Nullable String payload, long eventId) {
        ObjectNode result = this.runtime.json().mapper().createObjectNode();
        result.put("eventId", eventId);
        result.set("payload", this.runtime.json().parse(payload));
        return this.runtime.json().write(result);
    }

    private <T> Optional<T> eventOutcome(StepRow recorded, Class<T> type) {
        JsonNode result = this.runtime.json().parse(recorded.result());
        if (result.path("timedOut").asBoolean(false)) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        T payload = (T) this.runtime.json().convert(result.path("payload"), type);
        return Optional.ofNullable(payload);
    }

    /** {@code Skail.now()}: the time, recorded as a step. */
    public Instant now() {
        String value = deterministic(StepRow.NOW, "now", () -> this.runtime.json().write(Instant.ofEpochMilli(millis())));
        return (Instant) Objects.requireNonNull(this.runtime.json().read(value, Instant.class));
    }

    /** {@code Skail.randomUUID()}: a random UUID, recorded as a step. */
    public UUID randomUUID() {
        String value = deterministic(StepRow.UUID, "randomUUID", () -> this.runtime.json().write(UUID.randomUUID()));
        return (UUID) Objects.requireNonNull(this.runtime.json().read(value, UUID.class));
    }

    private String deterministic(String kind, String name, Supplier<String> value) {
        requireFunctionCode("Skail." + name);
        checkRunnable();
        int position = position();
        StepRow recorded = expect(position, kind, name, null, "Skail." + name + "()");
        if (recorded != null) {
            return Objects.requireNonNull(recorded.result());
        }
        requireRecording(position, name);
        long now = millis();
        StepRow step = new StepRow(taskId(), position, kind, name, "[]", StepRow.COMPLETED, value.get(), null,
                idempotencyKey(taskId(), position), this.execution.attempt(), now, now, null);
        record(() -> this.runtime.store().recordStep(this.lease, step, null, now, this.runtime.leaseUntil()));
        this.steps.put(position, step);
        return Objects.requireNonNull(step.result());
    }

    /** S8: starts a step on a thread of its own, at the position reserved now. */
    public <T> SkailTask<T> async(Supplier<T> supplier) {
        requireFunctionCode("Skail.async");
        if (this.frame.get().branchPosition >= 0) {
            throw usage("Skail.async was called inside an async step: start steps from the function itself");
        }
        checkRunnable();
        int position = this.nextPosition.getAndIncrement();
        Task<T> task = new Task<>(this);
        this.branches.add(task);
        StepRow recorded = this.steps.get(position);
        if (recorded != null && !StepRow.PENDING.equals(recorded.status())) {
            // recorded: replays at once on this thread, without running anything
            runBranch(task, supplier, position);
            return task;
        }
        this.runtime.asyncExecutor().execute(() -> {
            bind();
            Logs.delivery(taskId(), functionName());
            try {
                runBranch(task, supplier, position);
            }
            finally {
                Logs.clear();
                unbind();
            }
        });
        return task;
    }

    private <T> void runBranch(Task<T> task, Supplier<T> supplier, int position) {
        Frame frame = this.frame.get();
        int previous = frame.branchPosition;
        frame.branchPosition = position;
        frame.branchUsed = false;
        try {
            T value = supplier.get();
            if (!frame.branchUsed) {
                throw usage("The supplier given to Skail.async must call one @SkailCommand or @SkailFunction");
            }
            task.settle(value, null, false);
        }
        catch (Suspension ex) {
            task.settle(null, null, true);
        }
        catch (Throwable ex) {
            task.settle(null, ex, false);
        }
        finally {
            frame.branchPosition = previous;
            frame.branchUsed = false;
        }
    }

    /** S8: which of the tasks ended first, recorded. */
    public SkailTask<?> whenAny(SkailTask<?>... tasks) {
        requireFunctionCode("Skail.whenAny");
        if (tasks.length == 0) {
            throw new IllegalArgumentException("Skail.whenAny needs at least one task");
        }
        checkRunnable();
        int position = position();
        StepRow recorded = expect(position, StepRow.WHEN_ANY, "whenAny", "[" + tasks.length + "]", "Skail.whenAny");
        if (recorded != null) {
            SkailTask<?> first = tasks[Integer.parseInt(Objects.requireNonNull(recorded.result()))];
            ((Task<?>) first).join();
            return first;
        }
        requireRecording(position, "whenAny");
        Task<?> first = Task.firstSettled(tasks);
        checkRunnable();
        if (first.suspended) {
            throw new Suspension(String.valueOf(this.stopReason));
        }
        int index = List.of(tasks).indexOf(first);
        long now = millis();
        StepRow step = new StepRow(taskId(), position, StepRow.WHEN_ANY, "whenAny", "[" + tasks.length + "]",
                StepRow.COMPLETED, Integer.toString(index), null, idempotencyKey(taskId(), position),
                this.execution.attempt(), now, now, null);
        record(() -> this.runtime.store().recordStep(this.lease, step, null, now, this.runtime.leaseUntil()));
        this.steps.put(position, step);
        return first;
    }

    /** Waits for every task; throws the first failure in argument order. */
    public static void whenAll(SkailTask<?>... tasks) {
        for (SkailTask<?> task : tasks) {
            if (task instanceof Task<?> branch) {
                branch.join();
            }
        }
        for (SkailTask<?> task : tasks) {
            task.await();
        }
    }

    /** Outside an execution: the step runs at once. */
    public static <T> SkailTask<T> completedTask(Supplier<T> supplier) {
        Task<T> task = new Task<>(null);
        try {
            task.settle(supplier.get(), null, false);
        }
        catch (RuntimeException | Error ex) {
            task.settle(null, ex, false);
        }
        return task;
    }

    /** Outside an execution: the first task that is done, in argument order. */
    public static SkailTask<?> firstDone(SkailTask<?>... tasks) {
        return Task.firstSettled(tasks);
    }

    /** Waits for the async steps still running, so that the delivery ends only when they have recorded. */
    void awaitBranches() {
        for (Task<?> task : this.branches) {
            task.join();
        }
    }

    // ---------------------------------------------------------------- positions, checks, suspension

    /** Reports how long the replay of recorded steps took, once: when the first new step is reached, or at the end. */
    void replayEnded() {
        if (!this.replayReported) {
            this.replayReported = true;
            this.runtime.instrumentation().replayed(this.execution.function(), System.nanoTime() - this.startedNanos);
        }
    }

    private int position() {
        Frame frame = this.frame.get();
        if (frame.branchPosition >= 0) {
            if (frame.branchUsed) {
                throw usage("The supplier given to Skail.async must call exactly one step; it called a second one");
            }
            frame.branchUsed = true;
            return frame.branchPosition;
        }
        int position = this.nextPosition.getAndIncrement();
        if (position > this.lastRecordedPosition) {
            replayEnded();
        }
        return position;
    }

    /**
     * The step recorded at this position, if any, after checking that it is the step the function asks for (S10).
     */
    private @Nullable StepRow expect(int position, String kind, String name, @Nullable String arguments,
            String wanted) {
        StepRow recorded = this.steps.get(position);
        if (recorded == null) {
            return null;
        }
        if (!recorded.kind().equals(kind) || !recorded.name().equals(name)
                || (arguments != null && !arguments.equals(recorded.arguments()))) {
            throw diverge(position, "the history has " + describe(recorded) + " there, but the function now asks for "
                    + kind + " '" + name + "'" + ((arguments != null) ? " " + arguments : "") + " (" + wanted + ")");
        }
        return recorded;
    }

    private static String describe(StepRow step) {
        return step.kind() + " '" + step.name() + "'"
                + ((StepRow.DELAY.equals(step.kind()) || StepRow.WHEN_ANY.equals(step.kind())) ? " " + step.arguments()
                        : "");
    }

    /** In a local replay nothing new runs: reaching a step the history does not have ends the replay there. */
    private void requireRecording(int position, String name) {
        if (this.runtime.isReplayOnly()) {
            this.endOfHistory = position;
            throw suspend(ExecutionStatus.WAITING, null, null, null, "the replay reached step " + position + " ('"
                    + name + "'), which the history does not have");
        }
    }

    /** The position where a local replay reached the end of the recorded history, or -1. */
    int endOfHistory() {
        return this.endOfHistory;
    }

    private void requireFunctionCode(String what) {
        CommandScope command = this.frame.get().command;
        if (command != null) {
            throw usage("@SkailCommand " + command.step.describe() + " called " + what
                    + ": commands do not call commands, functions or skail primitives; only a function composes "
                    + "steps. To reuse logic inside a command, call a plain method without annotation");
        }
    }

    private void checkRunnable() {
        RuntimeException fatal = this.fatal;
        if (fatal != null) {
            throw fatal;
        }
        if (this.stopReason != null && this.frame.get().branchPosition < 0) {
            throw new Suspension(this.stopReason);
        }
    }

    private SkailUsageException usage(String message) {
        SkailUsageException ex = new SkailUsageException(message);
        if (this.fatal == null) {
            this.fatal = ex;
        }
        return ex;
    }

    private SkailNonDeterministicException diverge(int position, String detail) {
        SkailNonDeterministicException ex = new SkailNonDeterministicException(taskId(), position,
                "Replay of execution '" + taskId() + "' (" + this.execution.function()
                        + ") diverged from its history at step " + position + ": " + detail
                        + ". The function must reach the same steps in the same order on every replay: move clocks, "
                        + "randomness and I/O into commands, and version the workload when the sequence of steps changes");
        if (this.fatal == null) {
            this.fatal = ex;
        }
        return ex;
    }

    /**
     * The positions of the failed command steps whose exception left the function (itself or as a cause): those
     * commands run their attempts again on the next function attempt (S5), wherever they are in the history.
     */
    Set<Integer> escapedFailures(Throwable failure) {
        Set<Integer> positions = new java.util.TreeSet<>();
        for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
            Integer position = this.thrownFailures.get(cause);
            if (position != null) {
                positions.add(position);
            }
        }
        return positions;
    }

    /** Checks, once the function has ended, that it reached every recorded step (S10). */
    @Nullable RuntimeException checkHistoryConsumed() {
        int reached = this.nextPosition.get();
        if (this.fatal == null && this.stopReason == null && reached <= this.lastRecordedPosition) {
            StepRow first = this.steps.get(reached);
            diverge(reached, "the function ended after " + reached + " step(s), but the history holds "
                    + (this.lastRecordedPosition + 1) + "; step " + reached + " is "
                    + ((first != null) ? describe(first) : "missing"));
        }
        return this.fatal;
    }

    private synchronized Suspension suspend(ExecutionStatus status, @Nullable Long until, @Nullable String event,
            @Nullable String child, String reason) {
        if (status == ExecutionStatus.PENDING) {
            this.suspendStatus = ExecutionStatus.PENDING;
        }
        if (until != null) {
            this.suspendUntil = (this.suspendUntil != null) ? Math.min(this.suspendUntil, until) : until;
        }
        if (event != null) {
            this.awaitedEvents.add(event);
        }
        if (child != null) {
            this.awaitedChildren.add(child);
        }
        if (this.stopReason == null) {
            this.stopReason = reason;
        }
        return new Suspension(reason);
    }

    synchronized Suspend suspendRequest() {
        return new Suspend(this.suspendStatus, this.suspendUntil, Set.copyOf(this.awaitedEvents),
                Set.copyOf(this.awaitedChildren));
    }

    Suspension abandon(RuntimeException cause) {
        this.abandonCause = cause;
        synchronized (this) {
            if (this.stopReason == null) {
                this.stopReason = "delivery abandoned: " + cause.getMessage();
            }
        }
        return new Suspension("delivery abandoned: " + cause.getMessage());
    }

    private void record(Runnable write) {
        recording(() -> {
            write.run();
            return null;
        });
    }

    /** Runs a write of the history: a transport failure abandons the delivery, a refused statement fails it. */
    private <T> T recording(Supplier<T> write) {
        try {
            return write.get();
        }
        catch (LeaseLostException | StoreUnavailableException ex) {
            throw abandon(ex);
        }
        catch (StoreStatementException ex) {
            // the store refuses what the function asks it to record: retrying would refuse it again
            if (this.fatal == null) {
                this.fatal = ex;
            }
            throw ex;
        }
    }

    private StepRow completed(StepRow pending, @Nullable String result, long now) {
        return new StepRow(pending.taskId(), pending.position(), pending.kind(), pending.name(), pending.arguments(),
                StepRow.COMPLETED, result, null, pending.idempotencyKey(), pending.functionAttempt(), pending.startedAt(),
                now, pending.childTaskId());
    }

    private long millis() {
        return this.runtime.clock().millis();
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

    /** A child's id: the parent's id and the step's position, hashed when that would be too long. */
    static String childTaskId(String parentTaskId, int position) {
        String id = parentTaskId + ":" + position;
        return (id.length() <= 128) ? id
                : "child-" + UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- SkailContext

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
        CommandScope scope = this.frame.get().command;
        return (scope != null) ? scope.attempt : this.execution.attempt();
    }

    @Override
    public boolean isReplaying() {
        // the function's code is replaying up to where an earlier delivery got: a step it recorded or attempted
        return this.frame.get().command == null && this.nextPosition.get() <= this.lastReachedPosition;
    }

    @Override
    public @Nullable String commandName() {
        CommandScope scope = this.frame.get().command;
        return (scope != null) ? scope.step.name() : null;
    }

    @Override
    public String idempotencyKey() {
        CommandScope scope = this.frame.get().command;
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

    /** What one thread of the execution is doing. */
    private static final class Frame {

        @Nullable CommandScope command;

        int branchPosition = -1;

        boolean branchUsed;
    }

    /** A step started with {@code async}. */
    static final class Task<T> implements SkailTask<T> {

        private final @Nullable ExecutionContext context;

        private final java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);

        private volatile @Nullable T value;

        private volatile @Nullable Throwable failure;

        private volatile boolean suspended;

        private volatile int order;

        Task(@Nullable ExecutionContext context) {
            this.context = context;
        }

        void settle(@Nullable T value, @Nullable Throwable failure, boolean suspended) {
            this.value = value;
            this.failure = failure;
            this.suspended = suspended;
            this.order = (this.context != null) ? this.context.settleOrder.incrementAndGet() : 0;
            this.done.countDown();
            synchronized (Task.class) {
                Task.class.notifyAll();
            }
        }

        void join() {
            try {
                this.done.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw interrupted(this.context);
            }
        }

        /** An interrupt (the runtime stopping) abandons the delivery: it is not an attempt of anything. */
        static Suspension interrupted(@Nullable ExecutionContext context) {
            IllegalStateException cause = new IllegalStateException("interrupted while waiting for async steps");
            return (context != null) ? context.abandon(cause) : new Suspension(cause.getMessage());
        }

        @Override
        public T await() {
            join();
            if (this.suspended) {
                throw new Suspension("an async step is waiting for a redelivery");
            }
            Throwable failure = this.failure;
            if (failure != null) {
                throw Task.<RuntimeException>sneaky(failure);
            }
            return this.value;
        }

        @Override
        public boolean isDone() {
            return this.done.getCount() == 0;
        }

        static Task<?> firstSettled(SkailTask<?>... tasks) {
            synchronized (Task.class) {
                while (true) {
                    Task<?> first = null;
                    for (SkailTask<?> task : tasks) {
                        Task<?> candidate = (Task<?>) task;
                        if (candidate.isDone() && (first == null || candidate.order < first.order)) {
                            first = candidate;
                        }
                    }
                    if (first != null) {
                        return first;
                    }
                    try {
                        Task.class.wait(100);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw interrupted((tasks.length > 0) ? ((Task<?>) tasks[0]).context : null);
                    }
                }
            }
        }

        @SuppressWarnings("unchecked")
        private static <E extends Throwable> E sneaky(Throwable failure) throws E {
            throw (E) failure;
        }
    }
}
