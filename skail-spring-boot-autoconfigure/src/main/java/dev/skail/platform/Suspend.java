package dev.skail.platform;

import java.util.Set;

import dev.skail.ExecutionStatus;
import org.jspecify.annotations.Nullable;

/**
 * How a delivery ends when the function cannot go on yet: the execution becomes {@code status} and is due again at
 * {@code nextRunAt}, or earlier when one of the awaited events arrives or one of the awaited children ends.
 *
 * @param status {@link ExecutionStatus#PENDING} (a redelivery after a failure) or {@link ExecutionStatus#WAITING}
 * @param nextRunAt when it is due again, or {@code null} to wait for an event or a child only
 * @param events the names of the events that wake it
 * @param children the child executions whose end wakes it
 */
public record Suspend(ExecutionStatus status, @Nullable Long nextRunAt, Set<String> events, Set<String> children) {
}
