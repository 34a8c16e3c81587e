package dev.skail;

import java.time.Instant;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * An execution as the platform knows it.
 *
 * @param taskId the execution's id, the one given when it was triggered
 * @param workload the workload's name
 * @param version the workload's version the execution belongs to
 * @param function the function's name
 * @param status where it stands
 * @param arguments the positional arguments it was triggered with
 * @param result the function's result, once {@link ExecutionStatus#COMPLETED}
 * @param error the failure, once {@link ExecutionStatus#FAILED}
 * @param attempt the function's delivery attempt, starting at 1
 * @param createdAt when it was triggered
 * @param updatedAt when it last changed
 * @param nextRunAt when it is due to run again, if it is waiting for a backoff or a timer
 * @param parentTaskId the execution that started this one as a child, if any
 */
public record SkailExecution(String taskId, String workload, String version, String function, ExecutionStatus status,
        JsonNode arguments, @Nullable JsonNode result, @Nullable SkailError error, int attempt, Instant createdAt,
        Instant updatedAt, @Nullable Instant nextRunAt, @Nullable String parentTaskId) {
}
