package dev.skail;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A schedule of the workload ({@link SkailSchedule}) and where it stands.
 *
 * @param function the scheduled function, also the schedule's name and the first part of its executions' ids
 * @param cron the cron expression, resolved; {@value SkailSchedule#DISABLED} when the schedule is disabled
 * @param zone the time zone the cron is read in
 * @param missed what runs of missed ticks: {@code LAST} or {@code ALL}
 * @param nextTick the next tick an execution starts at, or {@code null} when disabled (or not registered yet)
 * @param lastTick the latest tick an execution was started for, if any
 * @param lastTaskId the id of that execution
 * @param version the workload version whose declaration the store holds (the instance that started last with it), or
 * {@code null} when it is not in the store yet
 * @param declaredHere whether this runtime declares the schedule with this cron and zone, and so starts its ticks
 * too; {@code false} for a schedule that only another version declares, or declares otherwise
 */
public record SkailScheduleInfo(String function, String cron, String zone, String missed, @Nullable Instant nextTick,
        @Nullable Instant lastTick, @Nullable String lastTaskId, @Nullable String version, boolean declaredHere) {

    /** Whether the schedule starts executions (its cron is not {@value SkailSchedule#DISABLED}). */
    public boolean enabled() {
        return !SkailSchedule.DISABLED.equals(this.cron);
    }
}
