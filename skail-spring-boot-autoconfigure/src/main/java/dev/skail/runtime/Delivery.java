package dev.skail.runtime;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.skail.ExecutionStatus;
import dev.skail.SkailCancelledException;
import dev.skail.SkailContext;
import dev.skail.SkailNonDeterministicException;
import dev.skail.SkailTask;
import dev.skail.SkailUsageException;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Tag;
import org.jspecify.annotations.Nullable;

/**
 * One delivery of one execution: the function runs from its first line, and each step it reaches is handed to the
 * class of its kind ({@link CommandStep}, {@link DelayStep}, {@link EventStep}, {@link ChildStep},
 * {@link RecordedValues}, {@link ParallelSteps}) at the position the cursor gives it (S1). The delivery binds itself
 * to the threads that run the function's code, keeps the cursor, checks each recorded step against the one asked
 * for (S10), and collects in its {@link Stop} why it ends early. {@link DeliveryView} is what
 * {@link SkailContext#current()} answers.
 */
final class Delivery {

    private static final ThreadLocal<Delivery> CURRENT = new ThreadLocal<>();

    final SkailRuntime runtime;

    final Lease lease;

    final ExecutionRow execution;

    final History history;

    final HistoryWriter writer;

    final Stop stop = new Stop();

    private final Thread functionThread = Thread.currentThread();

    private final AtomicInteger nextPosition = new AtomicInteger();

    private final ThreadLocal<Frame> frame = ThreadLocal.withInitial(Frame::new);

    private final long startedNanos = System.nanoTime();

    private final CommandStep commands = new CommandStep(this);

    private final ChildStep children = new ChildStep(this);

    final ParallelSteps parallel = new ParallelSteps(this);

    private final SkailContext view = new DeliveryView(this);

    private volatile boolean entered;

    private volatile boolean replayReported;

    private volatile int endOfHistory = -1;

    /** How often at most a delivery asks the store whether a cancel was requested. */
    private static final long CANCEL_CHECK_NANOS = 1_000_000_000L;

    private volatile boolean cancelRequested;

    private volatile long cancelCheckedNanos;

    /** The execution's tags, once {@link #tag} has read them. */
    private volatile @Nullable Set<Tag> tags;

    Delivery(SkailRuntime runtime, Lease lease, StoredHistory stored) {
        this(runtime, lease, stored, System.nanoTime());
    }

    /**
     * @param storedNanos when the history was read ({@link System#nanoTime}): the store is asked about a cancel
     * {@link #CANCEL_CHECK_NANOS} after it
     */
    Delivery(SkailRuntime runtime, Lease lease, StoredHistory stored, long storedNanos) {
        this.runtime = runtime;
        this.lease = lease;
        this.execution = stored.execution();
        this.history = new History(stored);
        this.writer = new HistoryWriter(runtime.store(), lease, this.history, this.stop, runtime::leaseUntil);
        this.cancelRequested = stored.events().stream()
            .anyMatch((event) -> ExecutionStore.CANCEL_EVENT.equals(event.name()));
        this.cancelCheckedNanos = storedNanos;
    }

    static @Nullable Delivery current() {
        return CURRENT.get();
    }

    void bind() {
        CURRENT.set(this);
    }

    void unbind() {
        CURRENT.remove();
        this.frame.remove();
    }

    // ---------------------------------------------------------------- what the function calls

    /** A call of an annotated method: the function itself, a child function, or a command. */
    Object onCall(StepMethod step, Object[] args, Invocation invocation) throws Throwable {
        requireFunctionCode(step.function() ? "@SkailFunction " + step.describe() : "@SkailCommand " + step.describe());
        if (step.function() && !this.entered) {
            this.entered = true;
            return invocation.proceed();
        }
        try {
            return step.function() ? this.children.call(step, args) : this.commands.call(step, args, invocation);
        }
        catch (Suspension ex) {
            throw intoFunction(ex);
        }
    }

    void delay(Duration duration) {
        primitive("Skail.delay", () -> {
            new DelayStep(this).delay(duration);
            return null;
        });
    }

    <T> Optional<T> waitForEvent(String name, Class<T> type, @Nullable Duration timeout) {
        return primitive("Skail.waitForEvent", () -> new EventStep(this).waitFor(name, type, timeout));
    }

    Instant now() {
        return primitive("Skail.now", () -> new RecordedValues(this).now());
    }

    UUID randomUUID() {
        return primitive("Skail.randomUUID", () -> new RecordedValues(this).randomUUID());
    }

    /**
     * {@code SkailContext.tag}: written under the lease unless this execution has the tag already (read from the store
     * once per delivery, then kept here), so a replay that tags again writes nothing. Not a step: no position is
     * taken. A local replay writes nothing.
     */
    void tag(String key, Object value) {
        if (value == null) {
            throw new IllegalArgumentException("Invalid tag " + key + ": a tag value must not be null");
        }
        String text;
        try {
            text = Tags.text(value);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Invalid tag " + key + ": " + ex.getMessage(), ex);
        }
        Tags.require(key, text);
        if (this.runtime.isReplayOnly()) {
            return;
        }
        Tag tag = new Tag(key, text);
        Set<Tag> known = this.tags;
        if (known == null) {
            synchronized (this) {
                known = this.tags;
                if (known == null) {
                    known = java.util.concurrent.ConcurrentHashMap.newKeySet();
                    known.addAll(this.writer.tags());
                    this.tags = known;
                }
            }
        }
        if (known.contains(tag)) {
            return;
        }
        this.writer.tag(tag, this.runtime.platformClock().millis());
        known.add(tag);
    }

    <T> SkailTask<T> async(Supplier<T> supplier) {
        return primitive("Skail.async", () -> this.parallel.async(supplier));
    }

    SkailTask<?> whenAny(SkailTask<?>... tasks) {
        return primitive("Skail.whenAny", () -> this.parallel.whenAny(tasks));
    }

    private <T> T primitive(String name, Supplier<T> call) {
        requireFunctionCode(name);
        try {
            return call.get();
        }
        catch (Suspension ex) {
            throw intoFunction(ex);
        }
    }

    /** Notes a suspension on its way into the function's own code: if the function returns anyway, it swallowed it. */
    Suspension intoFunction(Suspension suspension) {
        if (onFunctionThread() && this.stop.thrownIntoFunction() == null) {
            this.stop.thrownIntoFunction(suspension, callSite());
        }
        return suspension;
    }

    /** Notes that a recorded failure reaches the function's own code now (not an async branch's). */
    void seen(Throwable failure) {
        if (onFunctionThread()) {
            this.history.seen(failure, this.nextPosition.get());
        }
    }

    /** The line of the function's class that called the step being reached. */
    private String callSite() {
        String functionClass = this.runtime.catalog().function(functionName())
            .map((definition) -> definition.step().method().getDeclaringClass().getName())
            .orElse("");
        return StackWalker.getInstance().walk((frames) -> frames
            .filter((frame) -> frame.getClassName().equals(functionClass))
            .findFirst()
            .map((frame) -> frame.getClassName() + "." + frame.getMethodName() + "(" + frame.getFileName() + ":"
                    + frame.getLineNumber() + ")")
            .orElse("function '" + functionName() + "'"));
    }

    private boolean onFunctionThread() {
        return Thread.currentThread() == this.functionThread && this.frame.get().branchPosition < 0;
    }

    // ---------------------------------------------------------------- the cursor and its checks

    /** The position of the step being reached: the next one, or the one reserved for this async branch. */
    int position() {
        Frame frame = this.frame.get();
        if (frame.branchPosition >= 0) {
            if (frame.branchUsed) {
                throw usage("The supplier given to Skail.async must call exactly one step; it called a second one");
            }
            frame.branchUsed = true;
            return frame.branchPosition;
        }
        return next();
    }

    /** Reserves the next position (an async step reserves it when {@code async} is called). */
    int next() {
        int position = this.nextPosition.getAndIncrement();
        if (position > this.history.lastRecordedPosition()) {
            replayEnded();
        }
        return position;
    }

    /** The position the function's next step will get. */
    int cursor() {
        return this.nextPosition.get();
    }

    /** The step recorded at this position, if any, after checking it is the step the function asks for (S10). */
    @Nullable StepRow expect(int position, String kind, String name, @Nullable String arguments, String wanted) {
        cancelPoint(position);
        String mismatch = this.history.mismatch(position, kind, name, arguments);
        if (mismatch != null) {
            throw diverge(position, mismatch + " (" + wanted + ")");
        }
        return this.history.at(position);
    }

    /**
     * Where a cancellation reaches the function: the recorded {@link StepRow#CANCEL} step throws it again, at the same
     * position, on every replay; otherwise, when a cancel was requested and the function has not seen it yet, the
     * first step it reaches that is not recorded (new, or the PENDING delay, event or child it waits for) becomes the
     * CANCEL step, recorded before it is thrown. Recorded steps before it replay normally.
     */
    private void cancelPoint(int position) {
        StepRow recorded = this.history.at(position);
        if (recorded != null && StepRow.CANCEL.equals(recorded.kind())) {
            throw cancelled(position);
        }
        if ((recorded != null && !StepRow.PENDING.equals(recorded.status())) || !onFunctionThread()
                || this.runtime.isReplayOnly() || !cancelRequested() || this.history.cancelled()) {
            return;
        }
        long now = millis();
        SkailCancelledException cancelled = cancelled(position);
        String error = this.runtime.json().writeError(this.runtime.encodeError(cancelled));
        // in place of a child's step, it keeps the child's id: the store finds a parent's children through its steps
        String child = (recorded != null && StepRow.CHILD.equals(recorded.kind())) ? recorded.childTaskId() : null;
        this.writer.cancel(new StepRow(taskId(), position, StepRow.CANCEL, "cancel", "[]", StepRow.FAILED, null, error,
                key(position), this.execution.attempt(), now, now, child), now);
        if (child != null) {
            this.runtime.cancelQuietly(child);
        }
        throw cancelled;
    }

    private SkailCancelledException cancelled(int position) {
        return new SkailCancelledException(taskId(), "Execution '" + taskId() + "' (" + functionName()
                + ") was cancelled; the function saw it at step " + position);
    }

    /** Whether a cancel was requested: kept with the history, asked here, or (at most every second) in the store. */
    private boolean cancelRequested() {
        if (this.cancelRequested || this.runtime.cancelRequestedHere(taskId())) {
            return true;
        }
        long nanos = System.nanoTime();
        if (nanos - this.cancelCheckedNanos >= CANCEL_CHECK_NANOS) {
            this.cancelCheckedNanos = nanos;
            try {
                this.cancelRequested = this.runtime.store().cancelRequested(taskId());
            }
            catch (RuntimeException ex) {
                // the store could not say: the next boundary asks again
                this.cancelCheckedNanos = nanos - CANCEL_CHECK_NANOS;
            }
        }
        return this.cancelRequested;
    }

    /** In a local replay nothing new runs: reaching a step the history does not have ends the replay there. */
    void requireRecording(int position, String name) {
        if (this.runtime.isReplayOnly()) {
            this.endOfHistory = position;
            throw this.stop.suspend(ExecutionStatus.WAITING, null, null, null, "the replay reached step " + position
                    + " ('" + name + "'), which the history does not have");
        }
    }

    /** The position where a local replay reached the end of the recorded history, or -1. */
    int endOfHistory() {
        return this.endOfHistory;
    }

    void checkRunnable() {
        RuntimeException fatal = this.stop.fatal();
        if (fatal != null) {
            throw fatal;
        }
        if (this.runtime.isStopping() && !this.runtime.isReplayOnly()) {
            // graceful shutdown: the step boundary is where a delivery stops; what ran is recorded, the rest runs
            // on the next delivery (here after a restart, or on another instance at once)
            throw this.stop.abandon(new IllegalStateException("the runtime is shutting down"));
        }
        if (this.stop.stopped() && this.frame.get().branchPosition < 0) {
            throw this.stop.again();
        }
    }

    private void requireFunctionCode(String what) {
        CommandScope command = this.frame.get().command;
        if (command != null) {
            throw usage("@SkailCommand " + command.step().describe() + " called " + what
                    + ": commands do not call commands, functions or skail primitives; only a function composes "
                    + "steps. To reuse logic inside a command, call a plain method without annotation");
        }
    }

    SkailUsageException usage(String message) {
        return this.stop.fatal(new SkailUsageException(message));
    }

    SkailNonDeterministicException diverge(int position, String detail) {
        return this.stop.fatal(new SkailNonDeterministicException(taskId(), position, "Replay of execution '"
                + taskId() + "' (" + this.execution.function() + ") diverged from its history at step " + position
                + ": " + detail + ". The function must reach the same steps in the same order on every replay: move "
                + "clocks, randomness and I/O into commands, and version the workload when the sequence of steps "
                + "changes"));
    }

    /** Checks, once the function has returned, that it reached every recorded step (S10). */
    @Nullable RuntimeException checkHistoryConsumed() {
        int reached = this.nextPosition.get();
        if (this.stop.fatal() == null && !this.stop.stopped() && reached <= this.history.lastRecordedPosition()) {
            StepRow first = this.history.at(reached);
            diverge(reached, "the function ended after " + reached + " step(s), but the history holds "
                    + (this.history.lastRecordedPosition() + 1) + "; step " + reached + " is "
                    + ((first != null) ? History.describe(first) : "missing"));
        }
        return this.stop.fatal();
    }

    /** Reports how long the replay of recorded steps took, once: when the first new step is reached, or at the end. */
    void replayEnded() {
        if (!this.replayReported) {
            this.replayReported = true;
            this.runtime.instrumentation().replayed(this.execution.function(), System.nanoTime() - this.startedNanos);
        }
    }

    // ---------------------------------------------------------------- what the steps share

    Frame frame() {
        return this.frame.get();
    }

    /** Time as functions see it (delays, timeouts, {@code Skail.now()}). */
    long millis() {
        return this.runtime.functionClock().millis();
    }

    String key(int position) {
        return idempotencyKey(taskId(), position);
    }

    static String idempotencyKey(String taskId, int position) {
        return UUID.nameUUIDFromBytes(("skail:" + taskId + ":" + position).getBytes(StandardCharsets.UTF_8)).toString();
    }

    /** A child's id: the parent's id and the step's position, hashed when that would be too long. */
    static String childTaskId(String parentTaskId, int position) {
        String id = parentTaskId + ":" + position;
        return (id.length() <= 128) ? id : "child-" + UUID.nameUUIDFromBytes(id.getBytes(StandardCharsets.UTF_8));
    }

    // ---------------------------------------------------------------- identity

    String taskId() {
        return this.execution.taskId();
    }

    String functionName() {
        return this.execution.function();
    }

    /** What {@code SkailContext.current()} answers on the threads of this delivery. */
    SkailContext view() {
        return this.view;
    }

    /** Whether the function's code is replaying: it has not yet got past where an earlier delivery got. */
    boolean isReplaying() {
        return this.frame.get().command == null && this.nextPosition.get() <= this.history.lastReachedPosition();
    }

    /** The call of an annotated method, to go on with. */
    @FunctionalInterface
    interface Invocation {

        Object proceed() throws Throwable;
    }

    /** The command a thread is running, if any. */
    record CommandScope(StepMethod step, String key, int attempt) {
    }

    /** What one thread of the execution is doing. */
    static final class Frame {

        @Nullable CommandScope command;

        int branchPosition = -1;

        boolean branchUsed;
    }
}
