package dev.skail.runtime;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

import dev.skail.platform.StepRow;

/**
 * {@code Skail.now()} and {@code Skail.randomUUID()} as steps: the value is recorded the first time and read back on
 * every replay; the function gets the recorded value on the first run too.
 */
final class RecordedValues {

    private final Delivery delivery;

    RecordedValues(Delivery delivery) {
        this.delivery = delivery;
    }

    Instant now() {
        SkailJson json = this.delivery.runtime.json();
        String value = record(StepRow.NOW, "now", () -> json.write(Instant.ofEpochMilli(this.delivery.millis())));
        return (Instant) Objects.requireNonNull(json.read(value, Instant.class));
    }

    UUID randomUUID() {
        SkailJson json = this.delivery.runtime.json();
        String value = record(StepRow.UUID, "randomUUID", () -> json.write(UUID.randomUUID()));
        return (UUID) Objects.requireNonNull(json.read(value, UUID.class));
    }

    private String record(String kind, String name, Supplier<String> value) {
        this.delivery.checkRunnable();
        int position = this.delivery.position();
        StepRow recorded = this.delivery.expect(position, kind, name, null, "Skail." + name + "()");
        if (recorded != null) {
            return Objects.requireNonNull(recorded.result());
        }
        this.delivery.requireRecording(position, name);
        long now = this.delivery.millis();
        StepRow step = new StepRow(this.delivery.taskId(), position, kind, name, "[]", StepRow.COMPLETED, value.get(),
                null, this.delivery.key(position), this.delivery.execution.attempt(), now, now, null);
        this.delivery.writer.step(step, null, now);
        return Objects.requireNonNull(step.result());
    }
}
