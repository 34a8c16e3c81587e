package dev.skail.platform;

import java.util.List;

/**
 * An execution with its steps (by position) and attempts (by position, function attempt and number).
 *
 * @param execution the execution
 * @param steps its steps
 * @param attempts its attempts
 * @param events the events fired at it, in order of arrival
 */
public record StoredHistory(ExecutionRow execution, List<StepRow> steps, List<AttemptRow> attempts,
        List<EventRow> events) {
}
