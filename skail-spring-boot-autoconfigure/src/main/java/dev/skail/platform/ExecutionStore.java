package dev.skail.platform;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.skail.ExecutionStatus;
import org.jspecify.annotations.Nullable;

/**
 * Where executions and their histories live: the platform's SPI. Every method that changes an execution being
 * run takes the runner's {@link Lease} and fails with {@link LeaseLostException} when it is no longer held.
 * Each such method is one transaction: either all of it is recorded, or nothing is.
 */
public interface ExecutionStore {

    /** Creates the schema, or brings it up to date. */
    void initialize();

    /** Whether the store answers; throws when it does not. */
    void ping();

    /**
     * Inserts a new PENDING execution, due at once.
     * @return empty when it was created; the existing execution when the id is taken
     */
    Optional<ExecutionRow> create(ExecutionRow execution);

    Optional<ExecutionRow> find(String taskId);

    Optional<StoredHistory> history(String taskId);

    /** Executions, newest first. */
    List<ExecutionRow> list(@Nullable ExecutionStatus status, int limit);

    /** Claims up to {@code limit} executions of this workload version that are due (or whose lease expired). */
    List<Lease> claimDue(String workload, String version, String owner, int limit, long now, long leaseUntil);

    /** Claims one execution if it is due (or its lease expired). */
    Optional<Lease> claim(String taskId, String owner, long now, long leaseUntil);

    /** Extends the leases still held; returns those another runner holds now. */
    List<Lease> renew(List<Lease> leases, long now, long leaseUntil);

    /** Records a step's outcome and the attempt that produced it. */
    void recordStep(Lease lease, StepRow step, AttemptRow attempt, long now, long leaseUntil);

    /** Records a failed attempt and makes the execution PENDING again at {@code nextRunAt}, releasing the lease. */
    void scheduleRetry(Lease lease, AttemptRow attempt, long nextRunAt, long now);

    /**
     * Records the function's failed attempt; drops the failed steps at the end of the history (so their commands
     * run their attempts again); counts a redelivery and makes the execution PENDING at {@code nextRunAt}.
     */
    void scheduleFunctionRetry(Lease lease, AttemptRow attempt, long nextRunAt, long now);

    void complete(Lease lease, @Nullable String resultJson, long now);

    /** Marks the execution FAILED; the attempt, if given, is recorded with it. */
    void fail(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now);

    /** Gives the execution back without changing it, e.g. at shutdown. */
    void release(Lease lease, long now);

    /** Counts of this workload version's executions by status, plus {@code READY}: PENDING and due now. */
    Map<String, Long> counts(String workload, String version, long now);
}
