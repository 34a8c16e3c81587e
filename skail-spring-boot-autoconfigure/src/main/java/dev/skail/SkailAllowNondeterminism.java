package dev.skail;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Exempts a method from the start-up determinism analyzer, with the reason. On a {@link SkailFunction} it exempts
 * the function and the methods it calls; on a helper method of the function's class, that helper.
 * <p>
 * Use it where the analyzer cannot see that a call is safe (e.g. reading a constant system property once per
 * process), never to silence a real problem: a function that reads the clock or does I/O diverges on replay.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface SkailAllowNondeterminism {

    /** Why this method is deterministic although the analyzer flags it. Required, and shown in the logs. */
    String reason();
}
