package dev.skail.platform;

import org.jspecify.annotations.Nullable;

/**
 * A schedule as stored: the declaration that fires it, and its next tick. Times are epoch milliseconds.
 *
 * @param workload the workload's name
 * @param name the schedule's name (its function's)
 * @param function the function each tick starts
 * @param version the workload version that declared it last
 * @param cron the cron expression, or {@code "-"} when disabled
 * @param zone the time zone the cron is read in
 * @param missed what runs of missed ticks ({@code LAST}, {@code ALL})
 * @param nextTick the next tick to start, or {@code null} when disabled
 * @param lastTick the latest tick started, if any
 * @param lastTaskId the execution started for it
 * @param updatedAt when the row last changed
 */
public record ScheduleRow(String workload, String name, String function, String version, String cron, String zone,
        String missed, @Nullable Long nextTick, @Nullable Long lastTick, @Nullable String lastTaskId, long updatedAt) {

    /** Whether this row holds the same cron and zone: the same ticks. */
    public boolean sameTicks(ScheduleRow other) {
        return this.cron.equals(other.cron) && this.zone.equals(other.zone);
    }
}
