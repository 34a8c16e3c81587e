package dev.skail.platform;

import org.jspecify.annotations.Nullable;

/**
 * A recorded step.
 *
 * @param taskId the execution
 * @param position the position in the history, from 0
 * @param kind {@link #COMMAND} (more kinds come with timers and events)
 * @param name the step's name
 * @param arguments JSON array of its arguments
 * @param status {@link #COMPLETED} or {@link #FAILED}
 * @param result JSON of the result
 * @param error JSON of the exception thrown into the function
 * @param idempotencyKey the step's idempotency key
 * @param functionAttempt the function attempt that recorded it
 * @param startedAt when the first attempt started
 * @param completedAt when the outcome was recorded
 */
public record StepRow(String taskId, int position, String kind, String name, String arguments, String status,
        @Nullable String result, @Nullable String error, String idempotencyKey, int functionAttempt, long startedAt,
        long completedAt) {

    public static final String COMMAND = "COMMAND";

    public static final String COMPLETED = "COMPLETED";

    public static final String FAILED = "FAILED";
}
