package dev.skail;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

import dev.skail.runtime.CurrentExecution;

/**
 * The primitives a {@link SkailFunction} uses besides commands. Each one is a step of the history, so it gives the
 * same answer on every replay.
 * <p>
 * Outside an execution (e.g. a unit test calling the function as plain Java) the primitives do the plain thing:
 * delays return at once, {@code now()} reads the system clock, {@code async} runs the step at once;
 * {@code waitForEvent} throws, since nothing can fire an event there.
 */
public final class Skail {

    private Skail() {
    }

    /**
     * Hibernates the execution for this long. The delay is recorded; no thread waits; the execution wakes when it is
     * due, also after a restart; on replay a delay that is due returns at once. The duration is part of the step:
     * a replay that asks for another duration is a divergence (so is another timeout of
     * {@link #waitForEvent(String, Class, Duration)}). A zero delay is recorded and returns at once.
     *
     * @throws IllegalArgumentException when {@code duration} is negative, inside an execution or not (on a replay that
     * reaches a recorded delay, asking for another duration is a divergence first)
     */
    public static void delay(Duration duration) {
        if (duration == null) {
            throw new IllegalArgumentException("Skail.delay needs a duration, got null");
        }
        CurrentExecution.delay(duration);
    }

    /** {@link #delay(Duration)} in seconds. */
    public static void delaySeconds(long seconds) {
        delay(Duration.ofSeconds(seconds));
    }

    /** {@link #delay(Duration)} in minutes. */
    public static void delayMinutes(long minutes) {
        delay(Duration.ofMinutes(minutes));
    }

    /**
     * Hibernates until an event of this name is fired at the execution, and returns its payload. An event fired
     * before the function waits for it is kept; each wait consumes one event, in order of arrival.
     */
    public static <T> T waitForEvent(String name, Class<T> type) {
        return CurrentExecution.waitForEvent(name, type, null).orElse(null);
    }

    /**
     * {@link #waitForEvent(String, Class)}, giving up after {@code timeout}: empty when the time passed first.
     */
    public static <T> Optional<T> waitForEvent(String name, Class<T> type, Duration timeout) {
        return CurrentExecution.waitForEvent(name, type, timeout);
    }

    /**
     * Starts a step without waiting for it: {@code Skail.async(() -> cobrarCartao(id))}. The supplier calls one
     * command (or one function, as a child execution). Steps started together run at the same time; their positions
     * in the history follow the order of the {@code async} calls, so replay is deterministic.
     */
    public static <T> SkailTask<T> async(Supplier<T> step) {
        return CurrentExecution.async(step);
    }

    /** Waits for every task; throws the exception of the first failed task, in argument order. */
    public static void whenAll(SkailTask<?>... tasks) {
        CurrentExecution.whenAll(tasks);
    }

    /**
     * Waits for the first task to end and returns it (compare with {@code ==}). Which task ended first is recorded,
     * so a replay returns the same one.
     */
    public static SkailTask<?> whenAny(SkailTask<?>... tasks) {
        return CurrentExecution.whenAny(tasks);
    }

    /** The current time, recorded: the same on every replay. */
    public static Instant now() {
        return CurrentExecution.now();
    }

    /** A random UUID, recorded: the same on every replay. */
    public static UUID randomUUID() {
        return CurrentExecution.randomUUID();
    }
}
