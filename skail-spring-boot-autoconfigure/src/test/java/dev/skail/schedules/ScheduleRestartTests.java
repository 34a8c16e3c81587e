package dev.skail.schedules;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailScheduleInfo;
import dev.skail.runtime.SkailRuntime;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Schedules across restarts, on one store and one virtual time line: a restart neither starts a tick again nor loses
 * the next one; ticks missed while every instance was down follow the missed policy (the latest once, or each); a
 * deployment with another cron counts its ticks from its start.
 */
class ScheduleRestartTests {

    private final VirtualClock clock = ScheduleInstances.timeLine();

    private final String store = "jdbc:h2:mem:schedule-restarts-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    @Test
    void aRestartNeitherStartsATickAgainNorLosesTheNextOne() {
        Instant began = this.clock.instant();
        Instant first = nextHour();
        try (ConfigurableApplicationContext instance = ScheduleInstances.start(this.clock, this.store)) {
            advanceTo(first);
            ScheduleInstances.await(instance).status("relatorioDePedidos:" + first, ExecutionStatus.COMPLETED);
        }

        try (ConfigurableApplicationContext restarted = ScheduleInstances.start(this.clock, this.store)) {
            // the store kept the schedule's next tick: the restart starts nothing now
            assertThat(schedule(restarted, "relatorioDePedidos").nextTick()).isEqualTo(first.plus(Duration.ofHours(1)));
            Instant second = nextHour();
            advanceTo(second);
            ScheduleInstances.await(restarted).status("relatorioDePedidos:" + second, ExecutionStatus.COMPLETED);

            assertThat(ticksSince(restarted, "relatorioDePedidos", began)).containsExactly(
                    "relatorioDePedidos:" + first, "relatorioDePedidos:" + second);
            assertThat(ScheduledFlows.sent("relatorioDePedidos:" + first)).isEqualTo(1);
            assertThat(ScheduledFlows.sent("relatorioDePedidos:" + second)).isEqualTo(1);
        }
    }

    @Test
    void ticksMissedWhileEveryInstanceWasDownRunTheLatestOnceOrEachByTheirPolicy() {
        Instant began = this.clock.instant();
        Instant first = nextHour();
        try (ConfigurableApplicationContext instance = ScheduleInstances.start(this.clock, this.store)) {
            advanceTo(first);
            ScheduleInstances.await(instance).status("relatorioDePedidos:" + first, ExecutionStatus.COMPLETED);
        }
        // down for five hours and a half: the hourly report missed five ticks, the reconciliation (at :15) six
        this.clock.advance(Duration.ofMinutes(330));
        Instant latest = first.plus(Duration.ofHours(5));

        try (ConfigurableApplicationContext restarted = ScheduleInstances.start(this.clock, this.store)) {
            SkailExecution late = ScheduleInstances.await(restarted).status("relatorioDePedidos:" + latest,
                    ExecutionStatus.COMPLETED);
            // every quarter past the hour since the first start (the one before the first report included)
            List<String> reconciliations = new ArrayList<>();
            for (Instant tick = first.minus(Duration.ofMinutes(45)); !tick.isAfter(this.clock.instant());
                    tick = tick.plus(Duration.ofHours(1))) {
                if (tick.isAfter(began)) {
                    String taskId = "conciliarPagamentos:" + tick;
                    ScheduleInstances.await(restarted).status(taskId, ExecutionStatus.COMPLETED);
                    reconciliations.add(taskId);
                }
            }
            assertThat(reconciliations).hasSizeGreaterThanOrEqualTo(6);

            // LAST: the latest missed tick once, the four before it skipped
            assertThat(ticksSince(restarted, "relatorioDePedidos", began)).containsExactly(
                    "relatorioDePedidos:" + first, "relatorioDePedidos:" + latest);
            assertThat(late.createdAt()).isAfter(latest.plus(Duration.ofMinutes(29)));
            // ALL: each missed tick, each its own execution, once
            assertThat(ticksSince(restarted, "conciliarPagamentos", began)).containsExactlyElementsOf(reconciliations);
            assertThat(reconciliations).allSatisfy((taskId) -> assertThat(ScheduledFlows.sent(taskId)).isEqualTo(1));
            assertThat(schedule(restarted, "relatorioDePedidos").nextTick()).isEqualTo(latest.plus(Duration.ofHours(1)));
        }
    }

    @Test
    void aDeploymentWithAnotherCronCountsItsTicksFromItsStart() {
        Instant began = this.clock.instant();
        try (ConfigurableApplicationContext instance = ScheduleInstances.start(this.clock, this.store)) {
            assertThat(schedule(instance, "relatorioDePedidos").nextTick()).isEqualTo(nextHour());
        }

        try (ConfigurableApplicationContext redeployed = ScheduleInstances.start(this.clock, this.store,
                "schedules-test.relatorio.cron=0 */20 * * * *")) {
            Instant now = this.clock.instant();
            Instant tick = now.truncatedTo(ChronoUnit.HOURS)
                .plus(Duration.ofMinutes(20 * (now.atZone(java.time.ZoneOffset.UTC).getMinute() / 20 + 1)));
            SkailScheduleInfo schedule = schedule(redeployed, "relatorioDePedidos");
            assertThat(schedule.cron()).isEqualTo("0 */20 * * * *");
            assertThat(schedule.nextTick()).isEqualTo(tick);

            advanceTo(tick);

            ScheduleInstances.await(redeployed).status("relatorioDePedidos:" + tick, ExecutionStatus.COMPLETED);
            assertThat(ticksSince(redeployed, "relatorioDePedidos", began)).containsExactly(
                    "relatorioDePedidos:" + tick);
        }
    }

    @Test
    void aScheduleLeftByAnOldVersionThatStoppedIsTakenBackByTheVersionStillRunning() {
        Instant began = this.clock.instant();
        try (ConfigurableApplicationContext current = ScheduleInstances.start(this.clock, this.store,
                "skail.workload=vendas:v2.0.0", "schedules-test.relatorio.cron=0 */20 * * * *")) {
            // late in a rolling deployment an instance of the old version restarts, registers its hourly cron, and
            // then the deployment stops it
            try (ConfigurableApplicationContext old = ScheduleInstances.start(this.clock, this.store,
                    "skail.workload=vendas:v1.0.0")) {
                assertThat(schedule(old, "relatorioDePedidos").cron()).isEqualTo("0 0 * * * *");
            }

            // at the next poll the running version finds the stored cron is of a version nobody serves: it
            // registers its own again, and its ticks start from then
            Instant now = this.clock.instant();
            Instant poll = now.truncatedTo(ChronoUnit.HOURS)
                .plus(Duration.ofMinutes(20 * (now.atZone(java.time.ZoneOffset.UTC).getMinute() / 20 + 1)));
            if (poll.atZone(java.time.ZoneOffset.UTC).getMinute() == 0) {
                poll = poll.plus(Duration.ofMinutes(20)); // not a tick of the old cron either
            }
            advanceTo(poll.plus(Duration.ofMinutes(1)));
            Instant tick = poll.plus(Duration.ofMinutes(20));
            awaitCondition(() -> "0 */20 * * * *".equals(schedule(current, "relatorioDePedidos").cron())
                    && tick.equals(schedule(current, "relatorioDePedidos").nextTick()));
            assertThat(schedule(current, "relatorioDePedidos").nextTick()).isEqualTo(tick);

            advanceTo(tick);
            ScheduleInstances.await(current).status("relatorioDePedidos:" + tick, ExecutionStatus.COMPLETED);
            assertThat(ticksSince(current, "relatorioDePedidos", began)).containsExactly("relatorioDePedidos:" + tick);
        }
    }

    /** Waits (up to 10 s) until the condition holds, checking it every 10 ms. */
    private static void awaitCondition(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("the condition within 10 s").isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
        }
    }

    private Instant nextHour() {
        return this.clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
    }

    private void advanceTo(Instant tick) {
        this.clock.advance(Duration.between(this.clock.instant(), tick));
    }

    private static SkailScheduleInfo schedule(ConfigurableApplicationContext instance, String function) {
        return instance.getBean(SkailClient.class).schedules().stream()
            .filter((schedule) -> schedule.function().equals(function))
            .findFirst()
            .orElseThrow();
    }

    /** Every execution of the function, page by page. */
    static List<SkailExecution> executions(SkailRuntime runtime, String function) {
        List<SkailExecution> all = new java.util.ArrayList<>();
        for (int page = 0;; page++) {
            dev.skail.SkailPage found = runtime.search(dev.skail.SkailQuery.all().withFunction(function)
                .withSize(200)
                .withPage(page));
            all.addAll(found.items());
            if (!found.hasMore()) {
                return all;
            }
        }
    }

    /** The ids of the function's executions whose tick is at or after {@code since}, oldest tick first. */
    static List<String> ticksSince(ConfigurableApplicationContext instance, String function, Instant since) {
        SkailRuntime runtime = ScheduleInstances.runtime(instance);
        return executions(runtime, function).stream()
            .map(SkailExecution::taskId)
            .filter((taskId) -> !Instant.parse(taskId.substring(function.length() + 1)).isBefore(since))
            .sorted()
            .toList();
    }
}
