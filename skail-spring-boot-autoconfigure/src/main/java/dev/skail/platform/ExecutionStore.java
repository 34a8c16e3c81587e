package dev.skail.platform;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import org.jspecify.annotations.Nullable;

/**
 * Where executions and their histories live: the platform's SPI. Every method that changes an execution being
 * run takes the runner's {@link Lease} and fails with {@link LeaseLostException} when it is no longer held.
 * Each such method is one transaction: either all of it is recorded, or nothing is. A write may be repeated (a retry
 * after the commit went through but its acknowledgement was lost): writing a step, an attempt or a child that is
 * recorded already, the same, is success; a different one at its place fails with {@link StoreStatementException}.
 */
public interface ExecutionStore {

    /**
     * Creates the schema, or brings it up to date. When the database cannot be reached, the store may do it in the
     * background once it can, and fail its operations with {@link StoreUnavailableException} until then.
     */
    void initialize();

    /**
     * Checks at once, without retries, that the store can be reached and written (a health probe).
     * @throws StoreUnavailableException with the reason, when it cannot
     */
    default void check() {
    }

    /**
     * Inserts a new PENDING execution, due at once, with its tags, in one transaction.
     * @return empty when it was created; the existing execution when the id is taken (its tags are left as they are)
     */
    Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags);

    /**
     * Inserts a new execution already claimed under {@code lease} (RUNNING), with its tags, in one transaction: how a
     * trigger hands an execution straight to a free worker of its own process, with no poll and no claim of its own.
     * Nobody else is told it is due. A store that cannot creates it PENDING, as {@link #create} does, and says so
     * (the default).
     * @param lease the lease to create it under: its owner and a new token
     * @return the existing execution when the id is taken (nothing created), and whether it was created claimed
     */
    default Created createClaimed(ExecutionRow execution, List<Tag> tags, Lease lease, long leaseUntil) {
        return new Created(create(execution, tags), false);
    }

    /**
     * What {@link #createClaimed} did.
     * @param existing the execution that has the id, when it was taken (nothing was created)
     * @param claimed whether it was created claimed under the lease given (otherwise PENDING, or not at all)
     */
    record Created(Optional<ExecutionRow> existing, boolean claimed) {
    }

    /**
     * Inserts a new PENDING execution without tags, due at once.
     * @return empty when it was created; the existing execution when the id is taken
     */
    default Optional<ExecutionRow> create(ExecutionRow execution) {
        return create(execution, List.of());
    }

    Optional<ExecutionRow> find(String taskId);

    /** The execution with its tags, read together where the store can (one round trip on the JDBC stores). */
    default Optional<TaggedExecution> findTagged(String taskId) {
        return find(taskId).map((row) -> new TaggedExecution(row,
                tags(List.of(taskId)).getOrDefault(taskId, List.of())));
    }

    Optional<StoredHistory> history(String taskId);

    /**
     * The executions the query matches, newest first (by creation time, then id, both descending), from
     * {@code offset}, at most {@code limit} of them; the query's page and size are not used.
     */
    List<ExecutionRow> search(SkailQuery query, long offset, int limit);

    /**
     * How many executions the query matches per status, ignoring the query's statuses; every status is in the map.
     */
    Map<ExecutionStatus, Long> countByStatus(SkailQuery query);

    /** The tags of these executions, by id; an execution without tags is not in the map. */
    Map<String, List<Tag>> tags(Collection<String> taskIds);

    /**
     * Tags the execution the lease holds, unless it has this tag already (then nothing is written), fenced by the
     * lease.
     */
    void tag(Lease lease, Tag tag, long now, long leaseUntil);

    /**
     * Claims up to {@code limit} executions of this workload version that are due (or whose lease expired), except
     * those in {@code exclude} (the ones this runner is running already).
     */
    List<Lease> claimDue(String workload, String version, String owner, int limit, long now, long leaseUntil,
            Set<String> exclude);

    /**
     * As {@link #claimDue}, each lease with its execution's history when the claim itself can tell it: an execution
     * with no step, attempt or event yet (its first delivery), whose history is then exactly what {@link #history}
     * would read right after the claim. The runner then need not read it. {@code null} history otherwise, and always
     * by default (the leases of {@link #claimDue}).
     */
    default List<Claimed> claimDueWithHistory(String workload, String version, String owner, int limit, long now,
            long leaseUntil, Set<String> exclude) {
        return claimDue(workload, version, owner, limit, now, leaseUntil, exclude).stream()
            .map((lease) -> new Claimed(lease, null))
            .toList();
    }

    /**
     * An execution {@link #claimDueWithHistory} claimed.
     * @param lease its new lease
     * @param history its history as of the claim, when the claim could tell it without another read
     */
    record Claimed(Lease lease, @Nullable StoredHistory history) {
    }

    /**
     * Calls {@code wakeUp} whenever work of this workload version becomes due at once through another instance (a
     * trigger, an event, a resume, a child's end there), so that an idle worker need not wait for its next poll.
     * Nothing by default: a store that one process uses alone has no one else to hear from.
     * @param workload the workload
     * @param version its version
     * @param wakeUp what to call, on a thread of the store's; quick, it must not block
     * @return what stops listening
     */
    default AutoCloseable onDue(String workload, String version, Runnable wakeUp) {
        return () -> {
        };
    }

    /**
     * Calls {@code ended} with the id of every execution another instance ends (COMPLETED, FAILED, CANCELLED), so that
     * callers waiting for its result here need not poll; with {@code null} when any may have ended unheard: each time
     * listening starts, the first time included (listening may start some time after this returns, and again after a
     * broken connection). Nothing by default: a store that one process uses alone has no one else to hear from.
     * @param ended what to call, on a thread of the store's; quick, it must not block
     * @return what stops listening; a {@link Listening} when the store {@linkplain #announcesEnds announces every end}
     */
    default AutoCloseable onEnded(java.util.function.Consumer<@Nullable String> ended) {
        return () -> {
        };
    }

    /**
     * Whether every end of an execution of the store, whichever instance or process ends it, reaches {@link #onEnded}
     * while its {@link Listening} listens. A runtime then trusts that an execution it created while listening, and has
     * heard no end of since, has not ended: a caller that waits for it reads nothing as the wait starts. An end may be
     * heard a moment after its commit; one whose instance stopped before announcing it is never heard, so the runtime
     * also reads every waited-for execution every few seconds, and forgets that trust for an execution it reads ended.
     * False by default.
     */
    default boolean announcesEnds() {
        return false;
    }

    /** What {@link #onEnded} returns on a store that {@linkplain #announcesEnds announces every end}. */
    interface Listening extends AutoCloseable {

        /**
         * Whether every end announced now reaches the listener: listening has started and has not been seen to break
         * since (a connection dropped silently is seen at its next check).
         */
        boolean listening();
    }

    /** Extends the leases still held; returns those another runner holds now. */
    List<Lease> renew(List<Lease> leases, long now, long leaseUntil);

    /**
     * Records a step: inserts it, or completes the PENDING step at its position; with the attempt that produced it,
     * if any.
     */
    void recordStep(Lease lease, StepRow step, @Nullable AttemptRow attempt, long now, long leaseUntil);

    /**
     * Records several steps of one delivery in order, the attempt (if any) belonging to the last one, in one
     * transaction where the store can: the runtime keeps back a step that acknowledges nothing (a delay or an event
     * wait going to sleep, a delay found due) and hands it over with the delivery's next write. By default, one
     * {@link #recordStep} each.
     */
    default void recordSteps(Lease lease, List<StepRow> steps, @Nullable AttemptRow attempt, long now,
            long leaseUntil) {
        for (int i = 0; i < steps.size(); i++) {
            recordStep(lease, steps.get(i), (i == steps.size() - 1) ? attempt : null, now, leaseUntil);
        }
    }

    /** Records an attempt of a step that has no outcome yet (a failure that will be retried). */
    void recordAttempt(Lease lease, AttemptRow attempt, long now, long leaseUntil);

    /**
     * Ends the delivery without an outcome: the execution becomes PENDING or WAITING until it is due again (at once,
     * if an awaited event is already kept or an awaited child has already ended), releasing the lease.
     */
    void suspend(Lease lease, Suspend suspend, long now);

    /**
     * Records the steps kept back (the PENDING delay or event wait the delivery goes to sleep on, typically), then
     * suspends, in one transaction where the store can. By default, {@link #recordSteps} then {@link #suspend}.
     */
    default void suspend(Lease lease, List<StepRow> steps, Suspend suspend, long now, long leaseUntil) {
        if (!steps.isEmpty()) {
            recordSteps(lease, steps, null, now, leaseUntil);
        }
        suspend(lease, suspend, now);
    }

    /**
     * Creates a child execution, PENDING, with its tags, and records the parent's PENDING step that started it, in one
     * transaction.
     */
    void startChild(Lease lease, StepRow step, ExecutionRow child, List<Tag> childTags, long now, long leaseUntil);

    /** Creates a child execution without tags, PENDING, and records the parent's PENDING step that started it. */
    default void startChild(Lease lease, StepRow step, ExecutionRow child, long now, long leaseUntil) {
        startChild(lease, step, child, List.of(), now, leaseUntil);
    }

    /**
     * Consumes the oldest event of this name kept for the execution, if any, and records the step made from it, in
     * one transaction. When the step's position has consumed an event already (the same call, repeated), that event
     * is returned and no other is consumed.
     */
    Optional<EventRow> takeEvent(Lease lease, String name, Function<EventRow, StepRow> step,
            long now, long leaseUntil);

    /**
     * Keeps an event for an execution, and wakes it if it is waiting. An event whose {@code eventKey} the execution
     * has already received is not kept again (a repeated request, or a retry after an answer that was lost).
     */
    FireOutcome fire(String taskId, String name, @Nullable String payload, String eventKey, long now);

    /** What became of a fired event. */
    enum FireOutcome {

        /** Kept for the execution. */
        FIRED,

        /** No execution has that id. */
        NOT_FOUND,

        /** The execution has ended; the event is not kept. */
        ENDED
    }

    /**
     * Records the function's failed attempt; drops the failed command steps at the {@code dropped} positions (the
     * runtime decides which: those the function did not go past), so that their commands run their attempts again;
     * counts a redelivery and makes the execution PENDING at {@code nextRunAt}.
     */
    void scheduleFunctionRetry(Lease lease, AttemptRow attempt, Set<Integer> dropped, long nextRunAt, long now);

    /** Marks the execution COMPLETED, and wakes its parent if it has one. */
    void complete(Lease lease, @Nullable String resultJson, long now);

    /**
     * As {@link #complete}, and returns the execution as it ended, with its tags, when the write itself tells it
     * (exactly what {@link #findTagged} would read after it), so that callers waiting for its result need not read
     * it; {@code null} when it does not (the default).
     */
    default @Nullable TaggedExecution completeAndTell(Lease lease, @Nullable String resultJson, long now) {
        complete(lease, resultJson, now);
        return null;
    }

    /** Marks the execution FAILED, and wakes its parent if it has one; the attempt, if given, is recorded with it. */
    void fail(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now);

    /**
     * Resumes a FAILED execution by hand: drops the failed steps at the end of its history, starts its attempt
     * counters over and makes it PENDING, due at once.
     * @return false when it is not FAILED (or does not exist)
     */
    boolean resume(String taskId, long now);

    /**
     * The name of the event that keeps a cancel request: kept, idempotent and woken like any event, never waited for
     * by a function (names starting with {@code skail:} are refused when fired).
     */
    String CANCEL_EVENT = "skail:cancel";

    /** What became of a cancel request. */
    enum CancelOutcome {

        /** Kept (or kept already): the execution's function sees it at its next step boundary. */
        REQUESTED,

        /** No execution has that id. */
        NOT_FOUND,

        /** The execution has ended; nothing is kept. */
        ENDED
    }

    /**
     * Keeps a request to cancel the execution (as the event {@link #CANCEL_EVENT}, at most once) and, unless a runner
     * holds it, makes it due at once (a WAITING one, and a PENDING one waiting for a backoff), in one transaction.
     */
    default CancelOutcome requestCancel(String taskId, long now) {
        return switch (fire(taskId, CANCEL_EVENT, null, CANCEL_EVENT, now)) {
            case FIRED -> CancelOutcome.REQUESTED;
            case NOT_FOUND -> CancelOutcome.NOT_FOUND;
            case ENDED -> CancelOutcome.ENDED;
        };
    }

    /** Whether a cancel of this execution was requested (a running delivery asks at its step boundaries). */
    default boolean cancelRequested(String taskId) {
        return history(taskId).map((history) -> history.events().stream()
            .anyMatch((event) -> CANCEL_EVENT.equals(event.name()))).orElse(false);
    }

    /**
     * Records the {@link StepRow#CANCEL} step where the function sees the cancellation: inserted, or in place of the
     * PENDING step at its position (the delay, event or child the function was waiting for).
     */
    default void recordCancel(Lease lease, StepRow step, long now, long leaseUntil) {
        recordStep(lease, step, null, now, leaseUntil);
    }

    /** Marks the execution CANCELLED (its function has ended after seeing the cancellation), and wakes its parent. */
    default void cancelled(Lease lease, @Nullable String resultJson, String errorJson, long now) {
        fail(lease, errorJson, null, now);
    }

    /** The ids of the children of this execution that have not ended. */
    default List<String> runningChildren(String taskId) {
        return List.of();
    }

    /**
     * Gives the execution back without changing it, e.g. at shutdown: due again now. Fenced by the lease: an
     * execution that does not exist, has ended, or is held under another lease is left as it is. A store that commits
     * writes of several callers together orders the release after the batch it is committing when the release is
     * asked (a claimed create whose caller gave up on it while its batch was being committed is given back, not left
     * to its lease).
     */
    void release(Lease lease, long now);

    /** Counts of this workload version's executions by status, plus {@code READY}: PENDING and due now. */
    Map<String, Long> counts(String workload, String version, long now);

    /**
     * Deletes up to {@code limit} executions that ended (COMPLETED, FAILED, CANCELLED) before {@code endedBefore},
     * with their steps, attempts, events and tags, in one transaction; never a child whose parent is still going (the
     * parent has yet to read its outcome). A store that keeps everything does nothing.
     * @return how many executions were deleted
     */
    default int deleteEndedBefore(long endedBefore, int limit) {
        return 0;
    }

    /** Notes that this runtime instance, serving this workload version, is alive now (S12). */
    default void heartbeat(String instanceId, String workload, String version, long now) {
    }

    /** Forgets a runtime instance that stops. */
    default void forget(String instanceId) {
    }

    /**
     * The versions of this workload that a runtime instance serves, of those seen alive since {@code seenSince}.
     * A store that does not know answers {@code null}.
     */
    default @Nullable Set<String> versionsServed(String workload, long seenSince) {
        return null;
    }
}
