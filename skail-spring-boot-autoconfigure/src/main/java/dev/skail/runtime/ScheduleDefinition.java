package dev.skail.runtime;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;

import dev.skail.SkailSchedule;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.support.CronExpression;

/**
 * A schedule the workload declares ({@link SkailSchedule} on a function), resolved and checked at start-up, and the
 * arithmetic of its ticks.
 *
 * @param function the scheduled function, also the schedule's name
 * @param cron the cron expression as resolved, or {@value SkailSchedule#DISABLED}
 * @param expression the parsed cron, or {@code null} when disabled
 * @param zone the time zone the cron is read in
 * @param missed what runs of missed ticks
 */
record ScheduleDefinition(String function, String cron, @Nullable CronExpression expression, ZoneId zone,
        SkailSchedule.Missed missed) {

    boolean enabled() {
        return this.expression != null;
    }

    /** The first tick strictly after {@code after}, or {@code null} when there is none (or the schedule is disabled). */
    @Nullable Instant next(Instant after) {
        if (this.expression == null) {
            return null;
        }
        ZonedDateTime next = this.expression.next(ZonedDateTime.ofInstant(after, this.zone));
        return (next != null) ? next.toInstant() : null;
    }

    /**
     * The latest tick at or before {@code now}, given {@code due}, a tick at or before {@code now}: {@code due} itself
     * when no later tick is due. The search looks back from {@code now} over windows that double (a second, two,
     * four ...), so that it costs a few dozen cron evaluations whatever the length of the downtime, rather than one
     * per missed tick.
     */
    Instant latestDue(Instant due, Instant now) {
        Instant start = due;
        for (long window = 1000; ; window *= 2) {
            Instant from = now.minusMillis(window);
            if (!from.isAfter(due)) {
                break;
            }
            Instant tick = next(from);
            if (tick != null && !tick.isAfter(now)) {
                start = tick;
                break;
            }
        }
        Instant latest = start;
        for (Instant tick = next(start); tick != null && !tick.isAfter(now); tick = next(tick)) {
            latest = tick;
        }
        return latest;
    }

    /** The id of the execution a tick starts: {@code {function}:{tick as an ISO-8601 instant in UTC}}. */
    String taskId(Instant tick) {
        return this.function + ":" + tick;
    }
}
