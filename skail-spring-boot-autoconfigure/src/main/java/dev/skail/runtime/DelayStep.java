package dev.skail.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import dev.skail.ExecutionStatus;
import dev.skail.platform.StepRow;

/**
 * {@code Skail.delay} as a step (S6): recorded with the time it is due; the execution hibernates until then, with no
 * thread waiting; a replay that reaches a due delay goes on at once. The duration is part of the step's identity, as
 * an event wait's timeout is (skail's "Determinismo e replay": a replay that asks for another duration does not
 * match the recorded step, S10).
 */
final class DelayStep {

    static final String NAME = "delay";

    private final Delivery delivery;

    DelayStep(Delivery delivery) {
        this.delivery = delivery;
    }

    void delay(Duration duration) {
        this.delivery.checkRunnable();
        int position = this.delivery.position();
        String arguments = "[" + duration.toMillis() + "]";
        StepRow recorded = this.delivery.expect(position, StepRow.DELAY, NAME, arguments,
                "Skail.delay(" + duration + ")");
        long now = this.delivery.millis();
        if (recorded == null) {
            requireNotNegative(duration);
            this.delivery.requireRecording(position, NAME);
            long due = now + duration.toMillis();
            boolean elapsed = due <= now;
            StepRow step = new StepRow(this.delivery.taskId(), position, StepRow.DELAY, NAME,
                    arguments, elapsed ? StepRow.COMPLETED : StepRow.PENDING, Long.toString(due),
                    null, this.delivery.key(position), this.delivery.execution.attempt(), now, now, null);
            if (!elapsed) {
                // kept back: written with the suspension, in one write (lost before it, the replay delays again)
                this.delivery.writer.keepBack(step);
                throw hibernate(due);
            }
            this.delivery.writer.step(step, null, now);
            return;
        }
        if (StepRow.COMPLETED.equals(recorded.status())) {
            return;
        }
        long due = Long.parseLong(Objects.requireNonNull(recorded.result()));
        if (due > now) {
            throw hibernate(due);
        }
        // kept back: written with the delivery's next write (lost before it, the replay finds the delay due again)
        this.delivery.writer.keepBack(completed(recorded, now));
    }

    /** A negative delay is a mistake in the function (a due time that passed): refused, never recorded. */
    static void requireNotNegative(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("Skail.delay needs a duration of zero or more, got " + duration
                    + ": compute the due time from a recorded value (Skail.now() or a command) and clamp it with"
                    + " Duration.ZERO when it may have passed");
        }
    }

    private Suspension hibernate(long due) {
        return this.delivery.stop.suspend(ExecutionStatus.WAITING, due, null, null,
                "delay until " + Instant.ofEpochMilli(due));
    }

    /** The PENDING step, completed now with the result it holds. */
    static StepRow completed(StepRow pending, long now) {
        return new StepRow(pending.taskId(), pending.position(), pending.kind(), pending.name(), pending.arguments(),
                StepRow.COMPLETED, pending.result(), null, pending.idempotencyKey(), pending.functionAttempt(),
                pending.startedAt(), now, pending.childTaskId());
    }
}
