package dev.skail;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Starts an execution of a {@link SkailFunction} of no parameters at every tick of a cron expression: one execution
 * per tick, with the id {@code {function}:{tick}} (the tick as an ISO-8601 instant in UTC, e.g.
 * {@code relatorioDePedidos:2025-03-01T06:00:00Z}), exactly once across every instance that shares the store and
 * across restarts.
 * <pre>{@code
 * @SkailFunction
 * @SkailSchedule(cron = "${pedidos.relatorio.cron:0 0 6 * * *}", zone = "America/Sao_Paulo")
 * public void relatorioDePedidos() { ... }
 * }</pre>
 * <p>
 * {@link #cron()} and {@link #zone()} may be {@code ${...}} placeholders, resolved from the application's
 * {@code Environment} at start-up; the cron {@value #DISABLED} disables the schedule (as with Spring's
 * {@code @Scheduled}). A cron or zone that is not valid, a function with parameters, or this annotation on a method
 * that is not a {@link SkailFunction} fails the application's start-up with a report naming the method and the fix.
 * <p>
 * Ticks missed while no instance ran (every instance down, a deployment that took longer than a period) follow
 * {@link #missed()}: by default only the latest missed tick runs, once. See {@code docs/schedules.md}.
 */
@Documented
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface SkailSchedule {

    /** The cron value that disables a schedule, e.g. through a property: {@code pedidos.relatorio.cron=-}. */
    String DISABLED = "-";

    /**
     * A cron expression of six fields (second, minute, hour, day of month, month, day of week) as Spring's
     * {@code CronExpression} reads it, e.g. {@code "0 0 6 * * *"} for 06:00 every day, or a macro such as
     * {@code "@daily"}; a {@code ${...}} placeholder; or {@value #DISABLED} to disable the schedule.
     */
    String cron();

    /**
     * The time zone the cron is read in, as a {@code java.time.ZoneId} ({@code "America/Sao_Paulo"}, {@code "UTC"}),
     * or a {@code ${...}} placeholder; UTC when empty. A zone with daylight saving time skips the ticks whose local
     * time does not exist when clocks go forward, and runs twice those that happen twice when clocks go back.
     */
    String zone() default "";

    /** What runs of the ticks missed while no instance could run them. */
    Missed missed() default Missed.LAST;

    /** What runs of the ticks that were missed (due while no instance ran), when an instance finds them. */
    enum Missed {

        /** Only the latest missed tick runs, once; the earlier ones are skipped (logged). */
        LAST,

        /** Every missed tick runs, oldest first, each its own execution with its own tick in its id. */
        ALL
    }
}
