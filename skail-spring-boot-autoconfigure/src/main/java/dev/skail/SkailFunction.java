package dev.skail;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the method of a Spring bean that orchestrates a durable flow. The method is run from its first line
 * on every delivery (replay): each step already recorded in the execution's history returns its recorded
 * outcome without running again. Outside an execution the method runs as plain Java.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface SkailFunction {

    /** Name under which the function is triggered; the method's name when empty. */
    String name() default "";

    /** How many times a failed execution is redelivered before it is marked FAILED. */
    int retryCount() default 15;
}
