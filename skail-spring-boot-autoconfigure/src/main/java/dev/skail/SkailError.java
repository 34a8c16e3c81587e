package dev.skail;

import org.jspecify.annotations.Nullable;

/**
 * A recorded exception.
 *
 * @param type the exception's class name
 * @param message its message
 * @param stackTrace its stack trace as text
 */
public record SkailError(String type, @Nullable String message, @Nullable String stackTrace) {
}
