package dev.skail.runtime;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import dev.skail.SkailSchedule;
import org.junit.jupiter.api.Test;

import org.springframework.scheduling.support.CronExpression;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arithmetic of ticks: ids, the latest missed tick, and what Spring's {@code CronExpression} does in a zone with
 * daylight saving time (documented in docs/schedules.md).
 */
class ScheduleDefinitionTests {

    private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

    @Test
    void theIdOfATickIsTheFunctionAndTheTickAsAnIsoInstantInUtc() {
        ScheduleDefinition daily = schedule("0 0 6 * * *", ZoneId.of("America/Sao_Paulo"));

        Instant tick = daily.next(Instant.parse("2025-03-01T00:00:00Z"));

        assertThat(tick).isEqualTo(Instant.parse("2025-03-01T09:00:00Z"));
        assertThat(daily.taskId(tick)).isEqualTo("relatorio:2025-03-01T09:00:00Z");
        assertThat(SkailRuntime.TASK_ID.matcher(daily.taskId(tick)).matches()).isTrue();
    }

    @Test
    void theLatestDueTickIsFoundWithoutWalkingEveryMissedTick() {
        ScheduleDefinition everySecond = schedule("* * * * * *", ZoneOffset.UTC);
        Instant due = Instant.parse("2025-01-01T00:00:00Z");
        Instant now = Instant.parse("2025-03-01T12:34:56.789Z"); // two months of missed ticks: five million

        long started = System.nanoTime();
        Instant latest = everySecond.latestDue(due, now);

        assertThat(latest).isEqualTo(Instant.parse("2025-03-01T12:34:56Z"));
        assertThat(System.nanoTime() - started).isLessThan(1_000_000_000L);
    }

    @Test
    void theLatestDueTickOfASparseCronAndOfNoMissedTick() {
        ScheduleDefinition firstOfTheMonth = schedule("0 0 6 1 * *", ZoneOffset.UTC);
        Instant due = Instant.parse("2024-11-01T06:00:00Z");

        assertThat(firstOfTheMonth.latestDue(due, Instant.parse("2025-03-15T00:00:00Z")))
            .isEqualTo(Instant.parse("2025-03-01T06:00:00Z"));
        // found a moment late, with no later tick due: the due tick itself
        assertThat(firstOfTheMonth.latestDue(due, Instant.parse("2024-11-01T06:00:00.250Z"))).isEqualTo(due);
        assertThat(firstOfTheMonth.latestDue(due, Instant.parse("2024-11-30T23:59:59Z"))).isEqualTo(due);
    }

    @Test
    void aLocalTimeSkippedWhenClocksGoForwardHasNoTickThatDay() {
        // 2024-03-10 in New York: 02:00 EST jumps to 03:00 EDT, so 02:30 does not exist
        ScheduleDefinition at0230 = schedule("0 30 2 * * *", NEW_YORK);

        List<Instant> ticks = ticks(at0230, Instant.parse("2024-03-09T00:00:00Z"), 3);

        assertThat(ticks).containsExactly(Instant.parse("2024-03-09T07:30:00Z"), Instant.parse("2024-03-11T06:30:00Z"),
                Instant.parse("2024-03-12T06:30:00Z"));
    }

    @Test
    void aLocalTimeThatHappensTwiceWhenClocksGoBackHasTwoTicksWithTwoIds() {
        // 2024-11-03 in New York: 02:00 EDT goes back to 01:00 EST, so 01:30 happens twice
        ScheduleDefinition at0130 = schedule("0 30 1 * * *", NEW_YORK);

        List<Instant> ticks = ticks(at0130, Instant.parse("2024-11-02T12:00:00Z"), 3);

        assertThat(ticks).containsExactly(Instant.parse("2024-11-03T05:30:00Z"), Instant.parse("2024-11-03T06:30:00Z"),
                Instant.parse("2024-11-04T06:30:00Z"));
        assertThat(ticks).extracting(at0130::taskId).doesNotHaveDuplicates();
    }

    @Test
    void utcHasNeitherGapsNorRepeats() {
        ScheduleDefinition at0130 = schedule("0 30 1 * * *", ZoneOffset.UTC);

        assertThat(ticks(at0130, Instant.parse("2024-11-02T12:00:00Z"), 3)).containsExactly(
                Instant.parse("2024-11-03T01:30:00Z"), Instant.parse("2024-11-04T01:30:00Z"),
                Instant.parse("2024-11-05T01:30:00Z"));
    }

    private static List<Instant> ticks(ScheduleDefinition schedule, Instant after, int count) {
        List<Instant> ticks = new ArrayList<>();
        Instant tick = after;
        for (int i = 0; i < count; i++) {
            tick = schedule.next(tick);
            ticks.add(tick);
        }
        return ticks;
    }

    private static ScheduleDefinition schedule(String cron, ZoneId zone) {
        return new ScheduleDefinition("relatorio", cron, CronExpression.parse(cron), zone, SkailSchedule.Missed.LAST);
    }
}
