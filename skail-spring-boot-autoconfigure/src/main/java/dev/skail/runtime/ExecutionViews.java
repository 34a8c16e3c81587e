package dev.skail.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.skail.SkailAttempt;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailStep;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Tag;

/**
 * The public views of what the store holds: executions, their steps and every attempt (S17), with the recorded
 * JSON kept as its exact text. A command whose attempts go on, with no outcome yet, shows as {@code RETRYING}.
 */
final class ExecutionViews {

    private final SkailJson json;

    private final java.util.function.Function<ExecutionRow, @org.jspecify.annotations.Nullable String> waitingFor;

    ExecutionViews(SkailJson json,
            java.util.function.Function<ExecutionRow, @org.jspecify.annotations.Nullable String> waitingFor) {
        this.json = json;
        this.waitingFor = waitingFor;
    }

    /** The history as the API, the Monitor and the replayer show it. */
    SkailHistory history(StoredHistory history, List<Tag> tags) {
        String taskId = history.execution().taskId();
        Map<Integer, List<AttemptRow>> attemptsByPosition = new TreeMap<>();
        for (AttemptRow attempt : history.attempts()) {
            attemptsByPosition.computeIfAbsent(attempt.position(), (position) -> new ArrayList<>()).add(attempt);
        }
        Map<Integer, SkailStep> steps = new TreeMap<>();
        for (StepRow step : history.steps()) {
            steps.put(step.position(), new SkailStep(step.position(), step.kind(), step.name(),
                    step.arguments(), step.status(),
                    step.result(), this.json.readError(step.error()),
                    step.idempotencyKey(), Instant.ofEpochMilli(step.startedAt()),
                    StepRow.PENDING.equals(step.status()) ? null : Instant.ofEpochMilli(step.completedAt()),
                    attemptViews(attemptsByPosition.getOrDefault(step.position(), List.of())), step.childTaskId()));
        }
        attemptsByPosition.forEach((position, attempts) -> {
            if (position != AttemptRow.FUNCTION_POSITION && !steps.containsKey(position)) {
                // attempts made, no outcome recorded yet: the step is being retried
                AttemptRow last = attempts.get(attempts.size() - 1);
                steps.put(position, new SkailStep(position, StepRow.COMMAND, last.name(), "null",
                        SkailStep.RETRYING, null, this.json.readError(last.error()),
                        Delivery.idempotencyKey(taskId, position),
                        Instant.ofEpochMilli(attempts.get(0).startedAt()), null, attemptViews(attempts), null));
            }
        });
        return new SkailHistory(execution(history.execution(), tags), List.copyOf(steps.values()),
                attemptViews(attemptsByPosition.getOrDefault(AttemptRow.FUNCTION_POSITION, List.of())));
    }

    private List<SkailAttempt> attemptViews(List<AttemptRow> rows) {
        return rows.stream().map(this::attemptView).toList();
    }

    private SkailAttempt attemptView(AttemptRow row) {
        return new SkailAttempt(row.number(), row.functionAttempt(), Instant.ofEpochMilli(row.startedAt()),
                Instant.ofEpochMilli(row.endedAt()), row.outcome(), this.json.readError(row.error()), row.decision(),
                (row.backoffMillis() != null) ? Duration.ofMillis(row.backoffMillis()) : null);
    }

    /** The execution as the API and the client show it. */
    SkailExecution execution(ExecutionRow row, List<Tag> tags) {
        Map<String, List<String>> byKey = new TreeMap<>();
        for (Tag tag : tags) {
            byKey.computeIfAbsent(tag.key(), (key) -> new ArrayList<>()).add(tag.value());
        }
        return new SkailExecution(row.taskId(), row.workload(), row.version(), row.function(), row.status(),
                row.arguments(), row.result(),
                this.json.readError(row.error()), row.attempt(), Instant.ofEpochMilli(row.createdAt()),
                Instant.ofEpochMilli(row.updatedAt()),
                (row.nextRunAt() != null) ? Instant.ofEpochMilli(row.nextRunAt()) : null, row.parentTaskId(),
                this.waitingFor.apply(row), byKey);
    }
}
