package dev.skail.runtime;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

import dev.skail.SkailContext;
import dev.skail.SkailTask;
import org.jspecify.annotations.Nullable;

/**
 * The execution running on the calling thread, as the public API ({@code Skail}, {@code SkailContext}) and the
 * integrations (outgoing HTTP, logging) reach it. Internal: applications use {@link dev.skail.Skail} and
 * {@link SkailContext}.
 */
public final class CurrentExecution {

    private CurrentExecution() {
    }

    /** The context of the execution running on this thread, or {@code null} outside one. */
    public static @Nullable SkailContext context() {
        Delivery delivery = Delivery.current();
        return (delivery != null) ? delivery.view() : null;
    }

    /** The context of the execution running on this thread; throws outside one. */
    public static SkailContext requireContext() {
        Delivery delivery = Delivery.current();
        if (delivery == null) {
            throw new IllegalStateException("No skail execution is running on this thread: SkailContext is "
                    + "available inside a @SkailFunction and the @SkailCommand methods it calls");
        }
        return delivery.view();
    }

    /** {@code Skail.delay}: outside an execution it does nothing. */
    public static void delay(Duration duration) {
        Delivery delivery = Delivery.current();
        if (delivery != null) {
            delivery.delay(duration);
        }
        else {
            DelayStep.requireNotNegative(duration);
        }
    }

    /** {@code Skail.waitForEvent}: inside an execution only. */
    public static <T> Optional<T> waitForEvent(String name, Class<T> type, @Nullable Duration timeout) {
        return require("waitForEvent").waitForEvent(name, type, timeout);
    }

    /** {@code Skail.async}: outside an execution the step runs at once. */
    public static <T> SkailTask<T> async(Supplier<T> step) {
        Delivery delivery = Delivery.current();
        return (delivery != null) ? delivery.async(step) : AsyncTask.completed(step);
    }

    /** {@code Skail.whenAll}. */
    public static void whenAll(SkailTask<?>... tasks) {
        ParallelSteps.whenAll(tasks);
    }

    /** {@code Skail.whenAny}: outside an execution, the first task done in argument order. */
    public static SkailTask<?> whenAny(SkailTask<?>... tasks) {
        Delivery delivery = Delivery.current();
        return (delivery != null) ? delivery.whenAny(tasks) : AsyncTask.firstSettled(tasks);
    }

    /** {@code Skail.now()}: recorded inside an execution. */
    public static Instant now() {
        Delivery delivery = Delivery.current();
        return (delivery != null) ? delivery.now() : Instant.now();
    }

    /** {@code Skail.randomUUID()}: recorded inside an execution. */
    public static UUID randomUUID() {
        Delivery delivery = Delivery.current();
        return (delivery != null) ? delivery.randomUUID() : UUID.randomUUID();
    }

    private static Delivery require(String primitive) {
        Delivery delivery = Delivery.current();
        if (delivery == null) {
            throw new IllegalStateException("Skail." + primitive + " works inside a running @SkailFunction only");
        }
        return delivery;
    }
}
