package dev.skail.platform;

import org.jspecify.annotations.Nullable;

/**
 * A recorded step.
 *
 * @param taskId the execution
 * @param position the position in the history, from 0
 * @param kind what the step is: {@link #COMMAND}, {@link #DELAY}, {@link #EVENT}, {@link #CHILD}, {@link #NOW},
 * {@link #UUID}, {@link #WHEN_ANY} or {@link #CANCEL}
 * @param name the step's name
 * @param arguments JSON array of its arguments
 * @param status {@link #COMPLETED}, {@link #FAILED}, or {@link #PENDING} while it waits (a delay, an event, a child)
 * @param result JSON of the result
 * @param error JSON of the exception thrown into the function
 * @param idempotencyKey the step's idempotency key
 * @param functionAttempt the function attempt that recorded it
 * @param startedAt when the first attempt started
 * @param completedAt when the outcome was recorded (when it was reached, while PENDING)
 * @param childTaskId the child execution a {@link #CHILD} step started; on a {@link #CANCEL} step that took the place
 * of a child step the parent was waiting on, that step's child (the store finds a parent's children through its steps)
 */
public record StepRow(String taskId, int position, String kind, String name, String arguments, String status,
        @Nullable String result, @Nullable String error, String idempotencyKey, int functionAttempt, long startedAt,
        long completedAt, @Nullable String childTaskId) {

    public static final String COMMAND = "COMMAND";

    public static final String DELAY = "DELAY";

    public static final String EVENT = "EVENT";

    public static final String CHILD = "CHILD";

    public static final String NOW = "NOW";

    public static final String UUID = "UUID";

    public static final String WHEN_ANY = "WHEN_ANY";

    /** Where the function saw {@link dev.skail.SkailCancelledException}: a replay throws it at the same position. */
    public static final String CANCEL = "CANCEL";

    public static final String PENDING = "PENDING";

    public static final String COMPLETED = "COMPLETED";

    public static final String FAILED = "FAILED";
}
