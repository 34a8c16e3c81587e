package dev.skail.runtime;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import dev.skail.SkailScheduleInfo;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import org.jspecify.annotations.Nullable;

/** The schedules as the API, the client and the Monitor show them. */
final class ScheduleViews {

    private ScheduleViews() {
    }

    /**
     * The union of the schedules declared here and those stored for the workload: a stored one as stored (it is what
     * starts ticks), a declared one not stored yet with the next tick it would have.
     */
    static List<SkailScheduleInfo> of(Collection<ScheduleDefinition> declarations, @Nullable ScheduleStore store,
            RuntimeSettings settings, Instant now) {
        Map<String, ScheduleDefinition> declared = new TreeMap<>();
        declarations.forEach((schedule) -> declared.put(schedule.function(), schedule));
        Map<String, ScheduleRow> stored = new TreeMap<>();
        if (store != null) {
            store.schedules(settings.workload()).forEach((row) -> stored.put(row.name(), row));
        }
        TreeSet<String> names = new TreeSet<>(declared.keySet());
        names.addAll(stored.keySet());
        List<SkailScheduleInfo> views = new ArrayList<>();
        for (String name : names) {
            ScheduleDefinition schedule = declared.get(name);
            ScheduleRow row = stored.get(name);
            if (row != null) {
                boolean same = schedule != null && schedule.cron().equals(row.cron())
                        && schedule.zone().getId().equals(row.zone());
                views.add(new SkailScheduleInfo(row.function(), row.cron(), row.zone(), row.missed(),
                        instant(row.nextTick()), instant(row.lastTick()), row.lastTaskId(), row.version(), same));
            }
            else if (schedule != null) {
                views.add(new SkailScheduleInfo(schedule.function(), schedule.cron(), schedule.zone().getId(),
                        schedule.missed().name(), schedule.next(now), null, null, null, true));
            }
        }
        return views;
    }

    private static @Nullable Instant instant(@Nullable Long millis) {
        return (millis != null) ? Instant.ofEpochMilli(millis) : null;
    }
}
