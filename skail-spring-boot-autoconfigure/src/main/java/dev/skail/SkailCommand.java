package dev.skail;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method that performs I/O for a {@link SkailFunction}. Called from a function it becomes a step:
 * it runs once per recorded result, and any exception it throws is retried by redelivery; the function sees
 * the exception only when {@code retryCount + 1} attempts have failed. Outside an execution the method runs
 * as plain Java.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface SkailCommand {

    /** Name recorded in the history; the method's name when empty. */
    String name() default "";

    /** How many redeliveries a failed attempt gets: total attempts are {@code retryCount + 1}. */
    int retryCount() default 5;

    /**
     * Exceptions known to be definitive (S19, beyond the seeds, opt-in): one of these (or a subclass) skips the
     * remaining retries and reaches the function at once; the attempt log records the decision
     * {@code NOT_RETRYABLE}. By default every exception is retried, as skail's documentation says.
     */
    Class<? extends Throwable>[] noRetryFor() default {};

    /** Wait before this command's first redelivery, e.g. {@code "500ms"}; {@code skail.retry.backoff.initial} when empty. */
    String backoffInitial() default "";

    /** Growth of this command's wait per attempt; {@code skail.retry.backoff.multiplier} when 0. */
    double backoffMultiplier() default 0;

    /** Longest wait between this command's redeliveries, e.g. {@code "30s"}; {@code skail.retry.backoff.max} when empty. */
    String backoffMax() default "";

    /**
     * Randomizes each wait by up to this fraction either way (0.2: from 80 % to 120 %), so that many executions that
     * failed together do not retry together; 0 for none.
     */
    double backoffJitter() default 0;
}
