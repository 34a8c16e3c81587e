package dev.skail.http;

import dev.skail.SkailContext;
import dev.skail.runtime.CurrentExecution;
import org.jspecify.annotations.Nullable;

/** The idempotency key of the command step running on this thread, if any. */
public final class IdempotencyKeys {

    private IdempotencyKeys() {
    }

    /** The key of the running command step, or {@code null} outside a command. */
    public static @Nullable String current() {
        SkailContext context = CurrentExecution.context();
        if (context == null || context.commandName() == null) {
            return null;
        }
        return context.idempotencyKey();
    }
}
