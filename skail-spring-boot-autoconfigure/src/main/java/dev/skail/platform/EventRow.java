package dev.skail.platform;

import org.jspecify.annotations.Nullable;

/**
 * An event fired at an execution.
 *
 * @param id its order of arrival
 * @param taskId the execution
 * @param name the event's name
 * @param payload JSON of its payload
 * @param firedAt when it arrived
 * @param consumedPosition the position of the wait step that consumed it, or {@code null} while it is kept
 */
public record EventRow(long id, String taskId, String name, @Nullable String payload, long firedAt,
        @Nullable Integer consumedPosition) {
}
