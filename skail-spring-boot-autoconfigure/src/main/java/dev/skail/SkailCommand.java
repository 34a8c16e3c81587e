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
}
