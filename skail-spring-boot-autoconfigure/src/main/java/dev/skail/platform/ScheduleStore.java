package dev.skail.platform;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Where schedules live: the platform's SPI for {@code @SkailSchedule}. A schedule is one row per workload and name,
 * shared by every version and instance; starting a tick is a compare-and-set on its next tick, in the transaction that
 * creates the tick's execution, so each tick starts once however many instances race for it and whatever retention
 * has deleted since.
 */
public interface ScheduleStore {

    /**
     * Notes a schedule a runtime declares as it starts. A new schedule is stored as given, due at
     * {@code declared.nextTick()}. One stored with the same cron and zone keeps its next tick (ticks missed while no
     * instance ran are still due) and takes the rest of the declaration (function, version, missed policy). One
     * stored with another cron or zone (a new deployment changed it) takes the declaration whole, its next tick
     * included: the ticks are counted from now. A disabled declaration (cron {@code "-"}, no next tick) is stored as
     * such, so that instances that still declare it otherwise stop starting its ticks.
     * @param declared the declaration, with the first tick after now
     * @param now the time
     * @return the schedule as stored now
     */
    ScheduleRow register(ScheduleRow declared, long now);

    /** The schedules of this workload, by name. */
    List<ScheduleRow> schedules(String workload);

    /**
     * Starts one tick, in one transaction: moves the schedule's next tick from {@code schedule.nextTick()} to
     * {@code following} only if it still is {@code schedule.nextTick()} and its cron and zone are still
     * {@code schedule}'s, and then creates the execution (unless one with its id exists already).
     * @param schedule the schedule as read, its next tick the one expected
     * @param tick the tick started (the expected one, or a later one when missed ticks are skipped)
     * @param following the next tick after it, or {@code null} when the cron has none
     * @param execution the tick's execution, PENDING and due
     * @param now the time
     * @return whether this call moved the next tick (and so started the tick); {@code false} when another instance
     * did first, or the schedule changed
     */
    boolean fire(ScheduleRow schedule, long tick, @Nullable Long following, ExecutionRow execution, long now);
}
