package dev.skail.runtime;

import java.util.List;
import java.util.Objects;

import dev.skail.ExecutionStatus;
import dev.skail.SkailError;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.StepRow;
import dev.skail.platform.Tag;

/**
 * A {@code @SkailFunction} called from a function, as a step (S9): a child execution with its own history is
 * created with the step, in one transaction; the parent hibernates until the child ends, then records its result or
 * its exception, which reaches the parent at the call.
 */
final class ChildStep {

    private final Delivery delivery;

    ChildStep(Delivery delivery) {
        this.delivery = delivery;
    }

    Object call(StepMethod step, Object[] args) throws Throwable {
        this.delivery.checkRunnable();
        int position = this.delivery.position();
        StepRow recorded = this.delivery.expect(position, StepRow.CHILD, step.name(), null, step.describe());
        if (recorded != null && !StepRow.PENDING.equals(recorded.status())) {
            return outcome(recorded, step);
        }
        String taskId = this.delivery.taskId();
        String childId = Delivery.childTaskId(taskId, position);
        if (recorded == null) {
            this.delivery.requireRecording(position, step.name());
            long now = this.delivery.millis();
            String arguments = this.delivery.runtime.json().write(args);
            ExecutionRow parent = this.delivery.execution;
            StepRow pending = new StepRow(taskId, position, StepRow.CHILD, step.name(), arguments, StepRow.PENDING,
                    null, null, this.delivery.key(position), parent.attempt(), now, now, childId);
            ExecutionRow child = new ExecutionRow(childId, parent.workload(), parent.version(), step.name(), arguments,
                    ExecutionStatus.PENDING, null, null, 1, 0, now, now, now, taskId);
            List<Tag> tags = this.delivery.runtime.catalog().function(step.name())
                .map((definition) -> Tags.of(definition, args))
                .orElse(List.of());
            this.delivery.writer.startChild(pending, child, tags, now);
            throw waitFor(childId);
        }
        ExecutionRow child = this.delivery.writer.find(childId).orElse(null);
        if (child == null || !child.status().isTerminal()) {
            throw waitFor(childId);
        }
        long now = this.delivery.millis();
        boolean completed = child.status() == ExecutionStatus.COMPLETED;
        StepRow done = new StepRow(taskId, position, StepRow.CHILD, step.name(), recorded.arguments(),
                completed ? StepRow.COMPLETED : StepRow.FAILED, completed ? child.result() : null,
                completed ? null : child.error(), recorded.idempotencyKey(), recorded.functionAttempt(),
                recorded.startedAt(), now, childId);
        this.delivery.writer.step(done, null, now);
        return outcome(done, step);
    }

    private Suspension waitFor(String childId) {
        return this.delivery.stop.suspend(ExecutionStatus.WAITING, null, null, childId,
                "waiting for child execution '" + childId + "'");
    }

    private Object outcome(StepRow recorded, StepMethod step) throws Throwable {
        SkailRuntime runtime = this.delivery.runtime;
        if (StepRow.COMPLETED.equals(recorded.status())) {
            return runtime.json().read(recorded.result(), step.method().getGenericReturnType());
        }
        SkailError error = Objects.requireNonNull(runtime.json().readError(recorded.error()));
        throw runtime.decodeError(error, step.method().getDeclaringClass().getClassLoader());
    }
}
