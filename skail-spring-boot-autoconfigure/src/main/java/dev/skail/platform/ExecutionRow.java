package dev.skail.platform;

import dev.skail.ExecutionStatus;
import org.jspecify.annotations.Nullable;

/**
 * An execution as stored. JSON columns are kept as text; times are epoch milliseconds.
 *
 * @param taskId the id
 * @param workload the workload's name
 * @param version the workload's version
 * @param function the function's name
 * @param arguments JSON array of the arguments
 * @param status where it stands
 * @param result JSON of the result
 * @param error JSON of the failure
 * @param attempt the function's delivery attempt, from 1; grows on every function failure and manual resume
 * @param retriesUsed function redeliveries spent since the start or the last manual resume
 * @param nextRunAt when it is due, if it waits for a backoff or a timer
 * @param createdAt when it was created
 * @param updatedAt when it last changed
 * @param parentTaskId the execution that started this one as a child, if any
 */
public record ExecutionRow(String taskId, String workload, String version, String function, String arguments,
        ExecutionStatus status, @Nullable String result, @Nullable String error, int attempt, int retriesUsed,
        @Nullable Long nextRunAt, long createdAt, long updatedAt, @Nullable String parentTaskId) {
}
