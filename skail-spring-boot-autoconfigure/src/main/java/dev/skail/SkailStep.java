package dev.skail;

import java.lang.reflect.Type;
import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonRawValue;
import dev.skail.runtime.RawJsonDeserializer;
import dev.skail.runtime.SkailJson;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.annotation.JsonDeserialize;

/**
 * A step of an execution's history.
 * <p>
 * Its arguments and result are the JSON text that was recorded, exactly; as JSON (the HTTP API, a history file) they
 * are JSON values, not strings. The typed accessors ({@link #result(Class)}, {@link #argument(int, Class)}) read that
 * text with skail's default codec.
 *
 * @param position its position, 0 for the first step the function reaches
 * @param kind what the step is: {@code COMMAND}, {@code DELAY}, {@code EVENT}, {@code CHILD}, {@code NOW},
 * {@code UUID}, {@code WHEN_ANY} or {@code CANCEL} (where the function saw {@link SkailCancelledException}; a
 * replay throws it there again)
 * @param name the command's (or primitive's) name
 * @param arguments the arguments it was called with, as the JSON text of an array ({@code "null"} while a command
 * is {@code RETRYING}: they are recorded with its outcome)
 * @param status {@code COMPLETED} with a result, {@code FAILED} with the exception thrown into the function,
 * {@code PENDING} while it waits (a delay, an event, a child), or {@code RETRYING} while its attempts go on
 * @param result the recorded result as JSON text: a command's return value; for an {@code EVENT} step
 * {@code {"eventId": ..., "payload": ...}} (or {@code {"timedOut": true}}); for {@code NOW} and {@code UUID} the value
 * @param error the recorded exception
 * @param idempotencyKey the step's idempotency key
 * @param startedAt when the attempt that recorded its outcome started (the first attempt, while retrying)
 * @param completedAt when its outcome was recorded; {@code null} while {@code RETRYING}
 * @param attempts every attempt made, in order
 * @param childTaskId the child execution a {@code CHILD} step started; on a {@code CANCEL} step that took the place
 * of a child step the parent was waiting on, that step's child
 */
public record SkailStep(int position, String kind, String name,
        @JsonRawValue @JsonDeserialize(using = RawJsonDeserializer.class) String arguments, String status,
        @JsonRawValue @JsonDeserialize(using = RawJsonDeserializer.class) @Nullable String result,
        @Nullable SkailError error, String idempotencyKey, Instant startedAt, @Nullable Instant completedAt,
        List<SkailAttempt> attempts, @Nullable String childTaskId) {

    /** Status of a step whose outcome is recorded. */
    public static final String COMPLETED = "COMPLETED";

    /** Status of a step whose exception was recorded and thrown into the function. */
    public static final String FAILED = "FAILED";

    /** Status of a delay, event wait or child that has not ended yet. */
    public static final String PENDING = "PENDING";

    /** Status of a step whose attempts go on: failures are recorded, no outcome yet. */
    public static final String RETRYING = "RETRYING";

    /**
     * The recorded result, read as this type: e.g. {@code step.result(ResultadoCobranca.class)}.
     * @param type the command's return type (or one its JSON reads as)
     * @return the result, or {@code null} when none is recorded
     * @throws IllegalArgumentException if the result cannot be read as this type
     */
    @SuppressWarnings("unchecked")
    public <T> @Nullable T result(Class<T> type) {
        return (T) result((Type) type);
    }

    /**
     * The recorded result, read as this generic type.
     * @param type the command's return type (or one its JSON reads as)
     * @return the result, or {@code null} when none is recorded
     * @throws IllegalArgumentException if the result cannot be read as this type
     */
    public @Nullable Object result(Type type) {
        return SkailJson.standard().readView(this.result, type, "the result of step " + this.position);
    }

    /**
     * One of the arguments the step was called with, read as this type.
     * @param index the parameter's position, from 0
     * @param type the parameter's type (or one its JSON reads as)
     * @return the argument
     * @throws IllegalArgumentException if there is no such argument or it cannot be read as this type
     */
    @SuppressWarnings("unchecked")
    public <T> @Nullable T argument(int index, Class<T> type) {
        return (T) argument(index, (Type) type);
    }

    /**
     * One of the arguments the step was called with, read as this generic type.
     * @param index the parameter's position, from 0
     * @param type the parameter's type (or one its JSON reads as)
     * @return the argument
     * @throws IllegalArgumentException if there is no such argument or it cannot be read as this type
     */
    public @Nullable Object argument(int index, Type type) {
        return SkailJson.standard().readElement(this.arguments, index, type,
                "argument " + index + " of step " + this.position);
    }
}
