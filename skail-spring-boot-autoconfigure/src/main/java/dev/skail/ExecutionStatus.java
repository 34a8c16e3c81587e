package dev.skail;

/** Where an execution stands. */
public enum ExecutionStatus {

    /** Accepted and ready to run, or waiting for the backoff of a redelivery to pass. */
    PENDING,

    /** A runtime holds it and is running its function. */
    RUNNING,

    /** Hibernating until a delay is due or an event arrives; no thread is held. */
    WAITING,

    /** The function returned; its result is recorded. */
    COMPLETED,

    /** The function failed and its redeliveries are spent, or its replay diverged; it can be resumed by hand. */
    FAILED,

    /**
     * Cancelled by request ({@link SkailClient#cancel}): the function saw {@link SkailCancelledException} at a step,
     * may have compensated, and has ended. Not retried, not resumable.
     */
    CANCELLED;

    /** Whether the execution has ended. */
    public boolean isTerminal() {
        return this == COMPLETED || this == FAILED || this == CANCELLED;
    }
}
