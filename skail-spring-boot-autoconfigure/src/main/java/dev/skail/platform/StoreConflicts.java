package dev.skail.platform;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * What every store refuses when a write finds its place taken by something else, and how it says so: a step at a
 * position that holds another step, an attempt whose number is recorded as another attempt, a child whose id another
 * execution has. The same write again is a retry (its acknowledgement was lost) and is not refused.
 * <p>
 * Public for the stores of {@code dev.skail.platform.jdbc} and {@code dev.skail.platform.local}; not an API of skail.
 */
public final class StoreConflicts {

    private StoreConflicts() {
    }

    /**
     * Refuses {@code step} at its position unless it is {@code existing}, the step recorded there (a PENDING step
     * completed is the store's business, before this).
     * @throws StoreStatementException naming what differs
     */
    public static void refuseUnlike(StepRow existing, StepRow step) {
        List<String> differences = new ArrayList<>();
        differs(differences, "kind", existing.kind(), step.kind());
        differs(differences, "name", existing.name(), step.name());
        differs(differences, "status", existing.status(), step.status());
        differs(differences, "result", existing.result(), step.result());
        differs(differences, "error", existing.error(), step.error());
        differs(differences, "arguments", existing.arguments(), step.arguments());
        differs(differences, "child execution", existing.childTaskId(), step.childTaskId());
        if (!differences.isEmpty()) {
            throw new StoreStatementException("skail store refused to record step " + step.position() + " of '"
                    + step.taskId() + "': position " + step.position() + " already holds " + describe(existing)
                    + ", not " + describe(step) + " (they differ in " + String.join(", ", differences) + ")");
        }
    }

    /**
     * Refuses {@code attempt} unless it is {@code existing}, the attempt stored with its number (or, for an attempt a
     * step implies, the first recorded with its number or a later one).
     * @throws StoreStatementException naming what differs
     */
    public static void refuseUnlike(AttemptRow existing, AttemptRow attempt) {
        List<String> differences = new ArrayList<>();
        differs(differences, "name", existing.name(), attempt.name());
        differs(differences, "outcome", existing.outcome(), attempt.outcome());
        differs(differences, "error", existing.error(), attempt.error());
        differs(differences, "decision", existing.decision(), attempt.decision());
        differs(differences, "number", existing.number(), attempt.number());
        if (!differences.isEmpty()) {
            throw new StoreStatementException("skail store refused to record attempt " + attempt.number()
                    + " of function attempt " + attempt.functionAttempt() + " at position " + attempt.position()
                    + " of '" + attempt.taskId() + "': "
                    + ((existing.number() == attempt.number()) ? "it" : "attempt " + existing.number())
                    + " is recorded already as " + existing.outcome() + "/" + existing.decision() + ", not "
                    + attempt.outcome() + "/" + attempt.decision() + " (they differ in "
                    + String.join(", ", differences) + ")");
        }
    }

    /**
     * Refuses the child unless {@code existing}, the execution with its id, is that child (started before, whatever it
     * has done since).
     * @throws StoreStatementException naming what differs
     */
    public static void refuseUnlike(ExecutionRow existing, ExecutionRow child) {
        List<String> differences = new ArrayList<>();
        differs(differences, "parent", existing.parentTaskId(), child.parentTaskId());
        differs(differences, "workload", existing.workload(), child.workload());
        differs(differences, "version", existing.version(), child.version());
        differs(differences, "function", existing.function(), child.function());
        differs(differences, "arguments", existing.arguments(), child.arguments());
        if (!differences.isEmpty()) {
            throw new StoreStatementException("skail store refused to start child execution '" + child.taskId()
                    + "' of '" + child.parentTaskId() + "': an execution with that id exists already, started by "
                    + ((existing.parentTaskId() != null) ? "'" + existing.parentTaskId() + "'" : "a trigger")
                    + " (they differ in " + String.join(", ", differences) + ")");
        }
    }

    private static String describe(StepRow step) {
        return step.kind() + " '" + step.name() + "' " + step.status();
    }

    private static void differs(List<String> differences, String field, @Nullable Object recorded,
            @Nullable Object written) {
        if (!Objects.equals(recorded, written)) {
            differences.add(field);
        }
    }
}
