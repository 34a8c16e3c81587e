package dev.skail.platform;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * A deadline for the store operations of the current thread: a request (a trigger, a fire, a resume, a health probe)
 * gives up when it passes instead of retrying as the worker does. Without one, operations retry as configured.
 */
public final class StoreDeadline {

    private static final ThreadLocal<@Nullable Long> DEADLINE = new ThreadLocal<>();

    private StoreDeadline() {
    }

    /** Runs {@code work} with a deadline {@code timeout} from now (or the current one, if it is sooner). */
    public static <T> T within(Duration timeout, Supplier<T> work) {
        Long previous = DEADLINE.get();
        long deadline = System.nanoTime() + timeout.toNanos();
        if (previous != null && previous - deadline < 0) {
            deadline = previous;
        }
        DEADLINE.set(deadline);
        try {
            return work.get();
        }
        finally {
            if (previous != null) {
                DEADLINE.set(previous);
            }
            else {
                DEADLINE.remove();
            }
        }
    }

    /** Whether the current thread works under a deadline. */
    public static boolean isSet() {
        return DEADLINE.get() != null;
    }

    /** Milliseconds left before the current thread's deadline (0 when it has passed), or -1 when there is none. */
    public static long remainingMillis() {
        Long deadline = DEADLINE.get();
        if (deadline == null) {
            return -1;
        }
        return Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
    }

    /**
     * Runs {@code work} without the current thread's deadline, restoring it after: for work done on behalf of others
     * (a group commit led by a request), which the request's deadline must not cut short.
     */
    public static void without(Runnable work) {
        Long previous = DEADLINE.get();
        DEADLINE.remove();
        try {
            work.run();
        }
        finally {
            if (previous != null) {
                DEADLINE.set(previous);
            }
        }
    }
}
