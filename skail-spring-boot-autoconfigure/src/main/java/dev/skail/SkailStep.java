package dev.skail;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A step of an execution's history.
 *
 * @param position its position, 0 for the first step the function reaches
 * @param kind what the step is: {@code COMMAND}, {@code DELAY}, {@code EVENT}, {@code CHILD}, {@code NOW},
 * {@code UUID} or {@code WHEN_ANY}
 * @param name the command's (or primitive's) name
 * @param arguments the arguments it was called with
 * @param status {@code COMPLETED} with a result, {@code FAILED} with the exception thrown into the function,
 * {@code PENDING} while it waits (a delay, an event, a child), or {@code RETRYING} while its attempts go on
 * @param result the recorded result
 * @param error the recorded exception
 * @param idempotencyKey the step's idempotency key
 * @param startedAt when the attempt that recorded its outcome started (the first attempt, while retrying)
 * @param completedAt when its outcome was recorded; {@code null} while {@code RETRYING}
 * @param attempts every attempt made, in order
 * @param childTaskId the child execution a {@code CHILD} step started
 */
public record SkailStep(int position, String kind, String name, JsonNode arguments, String status,
        @Nullable JsonNode result, @Nullable SkailError error, String idempotencyKey, Instant startedAt,
        @Nullable Instant completedAt, List<SkailAttempt> attempts, @Nullable String childTaskId) {

    /** Status of a step whose outcome is recorded. */
    public static final String COMPLETED = "COMPLETED";

    /** Status of a step whose exception was recorded and thrown into the function. */
    public static final String FAILED = "FAILED";

    /** Status of a delay, event wait or child that has not ended yet. */
    public static final String PENDING = "PENDING";

    /** Status of a step whose attempts go on: failures are recorded, no outcome yet. */
    public static final String RETRYING = "RETRYING";
}
