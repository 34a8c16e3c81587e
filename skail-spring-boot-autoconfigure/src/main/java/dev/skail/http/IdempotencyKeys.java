package dev.skail.http;

import dev.skail.SkailContext;
import dev.skail.runtime.ExecutionContext;
import org.jspecify.annotations.Nullable;

/** The idempotency key of the command step running on this thread, if any. */
public final class IdempotencyKeys {

    private IdempotencyKeys() {
    }

    /** The key of the running command step, or {@code null} outside a command. */
    public static @Nullable String current() {
        ExecutionContext context = ExecutionContext.current();
        if (context == null || context.commandName() == null) {
            return null;
        }
        return ((SkailContext) context).idempotencyKey();
    }
}
