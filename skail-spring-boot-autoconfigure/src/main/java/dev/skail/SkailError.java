package dev.skail;

import java.io.Serializable;

import org.jspecify.annotations.Nullable;

/**
 * A recorded exception. It is what the history, the API and the Monitor show of a failure, and what a replay
 * throws into the function again. It is Serializable so that an exception holding one (such as
 * {@code dev.skail.SkailRecordedException}, wrapped by the function in one of its own) can be recorded in
 * turn.
 *
 * @param type the exception's class name
 * @param message its message
 * @param stackTrace its stack trace as text (with its causes and suppressed exceptions); {@code null} on the
 * entries of {@link #cause()}, whose stack is part of the text of the exception they are the cause of
 * @param cause the recorded cause of the exception (its class name and message, and its own cause), or
 * {@code null} when it has none
 * @param data the exception itself, in Java serialization form encoded as base64, from which a replay rebuilds
 * it with its class, message, causes, suppressed exceptions, stack trace and fields; {@code null} when it could
 * not be serialized (it is then rebuilt as a {@code dev.skail.SkailRecordedException} naming its class
 * and message), and on the entries of {@link #cause()}
 */
public record SkailError(String type, @Nullable String message, @Nullable String stackTrace,
        @Nullable SkailError cause, @Nullable String data) implements Serializable {

    /**
     * A recorded exception without cause and serialized form.
     * @param type the exception's class name
     * @param message its message
     * @param stackTrace its stack trace as text
     */
    public SkailError(String type, @Nullable String message, @Nullable String stackTrace) {
        this(type, message, stackTrace, null, null);
    }
}
