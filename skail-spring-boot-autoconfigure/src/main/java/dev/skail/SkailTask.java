package dev.skail;

/**
 * A step started with {@link Skail#async} and not yet awaited.
 *
 * @param <T> the step's result type
 */
public interface SkailTask<T> {

    /**
     * Waits for the step and returns its result, or throws its exception (the command's own, once its attempts are
     * spent).
     */
    T await();

    /** Whether the step has ended (with a result or an exception). */
    boolean isDone();
}
