package dev.skail;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A step of an execution's history.
 *
 * @param position its position, 0 for the first step the function reaches
 * @param kind what the step is, e.g. {@code COMMAND}
 * @param name the command's (or primitive's) name
 * @param arguments the arguments it was called with
 * @param status {@code COMPLETED} with a result, or {@code FAILED} with the exception thrown into the function
 * @param result the recorded result
 * @param error the recorded exception
 * @param idempotencyKey the step's idempotency key
 * @param startedAt when its first attempt started
 * @param completedAt when its outcome was recorded
 * @param attempts every attempt made, in order
 */
public record SkailStep(int position, String kind, String name, JsonNode arguments, String status,
        @Nullable JsonNode result, @Nullable SkailError error, String idempotencyKey, Instant startedAt,
        Instant completedAt, List<SkailAttempt> attempts) {
}
