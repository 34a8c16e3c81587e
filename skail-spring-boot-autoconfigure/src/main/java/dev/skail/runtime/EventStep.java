package dev.skail.runtime;

import java.time.Duration;
import java.util.Optional;

import dev.skail.ExecutionStatus;
import dev.skail.platform.EventRow;
import dev.skail.platform.StepRow;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code Skail.waitForEvent} as a step (S7): the oldest kept event of the name is consumed and its payload recorded,
 * in one transaction; with none kept, the execution hibernates until one is fired (or the timeout passes, recorded
 * as such). The timeout is part of the step's identity, as a delay's duration is: a replay that asks for another
 * timeout (or none) does not match the recorded step (S10).
 */
final class EventStep {

    private final Delivery delivery;

    EventStep(Delivery delivery) {
        this.delivery = delivery;
    }

    <T> Optional<T> waitFor(String name, Class<T> type, @Nullable Duration timeout) {
        if (name.isBlank() || name.length() > 200) {
            throw this.delivery.usage("Skail.waitForEvent needs an event name of 1 to 200 characters, not '" + name
                    + "'");
        }
        this.delivery.checkRunnable();
        int position = this.delivery.position();
        String arguments = (timeout != null) ? "[" + timeout.toMillis() + "]" : "[]";
        StepRow recorded = this.delivery.expect(position, StepRow.EVENT, name, arguments,
                "Skail.waitForEvent(\"" + name + "\"" + ((timeout != null) ? ", " + timeout : "") + ")");
        if (recorded != null && !StepRow.PENDING.equals(recorded.status())) {
            return outcome(recorded, type);
        }
        this.delivery.requireRecording(position, name);
        long now = this.delivery.millis();
        long startedAt = (recorded != null) ? recorded.startedAt() : now;
        String taskId = this.delivery.taskId();
        String key = this.delivery.key(position);
        int functionAttempt = this.delivery.execution.attempt();
        Optional<EventRow> taken = this.delivery.writer.takeEvent(name,
                (event) -> new StepRow(taskId, position, StepRow.EVENT, name, arguments, StepRow.COMPLETED,
                        result(event.payload(), event.id()), null, key, functionAttempt, startedAt, now, null),
                now);
        if (taken.isPresent()) {
            return outcome(this.delivery.history.at(position), type);
        }
        Long due = (recorded != null) ? recordedDue(recorded)
                : ((timeout != null) ? startedAt + timeout.toMillis() : null);
        if (due != null && due <= now) {
            StepRow timedOut = new StepRow(taskId, position, StepRow.EVENT, name, arguments, StepRow.COMPLETED,
                    "{\"timedOut\":true}", null, key, functionAttempt, startedAt, now, null);
            this.delivery.writer.step(timedOut, null, now);
            return Optional.empty();
        }
        if (recorded == null) {
            StepRow pending = new StepRow(taskId, position, StepRow.EVENT, name, arguments, StepRow.PENDING,
                    (due != null) ? "{\"due\":" + due + "}" : null, null, key, functionAttempt, now, now, null);
            // kept back: written with the suspension, in one write (lost before it, the replay waits again)
            this.delivery.writer.keepBack(pending);
        }
        throw this.delivery.stop.suspend(ExecutionStatus.WAITING, due, name, null, "waiting for event '" + name + "'");
    }

    private @Nullable Long recordedDue(StepRow pending) {
        if (pending.result() == null) {
            return null;
        }
        JsonNode due = this.delivery.runtime.json().parse(pending.result()).path("due");
        return due.isNumber() ? due.asLong() : null;
    }

    private String result(@Nullable String payload, long eventId) {
        SkailJson json = this.delivery.runtime.json();
        ObjectNode result = json.mapper().createObjectNode();
        result.put("eventId", eventId);
        result.set("payload", json.parse(payload));
        return json.write(result);
    }

    private <T> Optional<T> outcome(@Nullable StepRow recorded, Class<T> type) {
        SkailJson json = this.delivery.runtime.json();
        JsonNode result = json.parse((recorded != null) ? recorded.result() : null);
        if (result.path("timedOut").asBoolean(false)) {
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        T payload = (T) json.convert(result.path("payload"), type);
        return Optional.ofNullable(payload);
    }
}
