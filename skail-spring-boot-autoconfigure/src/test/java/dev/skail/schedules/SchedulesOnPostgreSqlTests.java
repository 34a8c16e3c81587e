package dev.skail.schedules;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import dev.skail.runtime.PostgreSqlForTests;
import dev.skail.test.VirtualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances on one PostgreSQL schema race for the same ticks, a hundred times: each tick starts exactly one
 * execution, run once, whichever instance starts it; then one instance stops and the other carries on alone, and
 * after both were down the first to come back starts the latest missed tick once.
 */
class SchedulesOnPostgreSqlTests {

    private static final int TICKS = 100;

    private final String schema = "schedules_" + UUID.randomUUID().toString().replace("-", "");

    private final VirtualClock clock = ScheduleInstances.timeLine();

    @AfterEach
    void dropSchema() throws Exception {
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
        }
    }

    @Test
    void twoInstancesRacingForEveryTickStartEachOnce() throws Exception {
        String url = PostgreSqlForTests.url() + (PostgreSqlForTests.url().contains("?") ? "&" : "?") + "currentSchema="
                + this.schema;
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + this.schema);
        }
        // a reconciliation every second, each tick started even when found late (ALL): none may be missing
        String[] properties = { "schedules-test.conciliacao.cron=* * * * * *", "schedules-test.relatorio.cron=-" };
        List<String> expected = new ArrayList<>();
        Instant first;
        try (ConfigurableApplicationContext one = ScheduleInstances.start(this.clock, url, properties);
                ConfigurableApplicationContext two = ScheduleInstances.start(this.clock, url, properties)) {
            first = ScheduleInstances.runtime(one).schedules().stream()
                .filter((schedule) -> schedule.function().equals("conciliarPagamentos"))
                .findFirst()
                .orElseThrow()
                .nextTick();
            for (int i = 0; i < TICKS; i++) {
                Instant tick = this.clock.instant().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
                // both schedulers are woken at once, and race for the tick
                this.clock.advance(Duration.between(this.clock.instant(), tick));
                ScheduleInstances.await(i % 2 == 0 ? one : two).status("conciliarPagamentos:" + tick,
                        ExecutionStatus.COMPLETED);
            }
            Instant last = this.clock.instant().truncatedTo(ChronoUnit.SECONDS);
            ScheduleInstances.await(one).status("conciliarPagamentos:" + last, ExecutionStatus.COMPLETED);
            for (Instant tick = first; !tick.isAfter(last); tick = tick.plusSeconds(1)) {
                expected.add("conciliarPagamentos:" + tick);
            }
            // every second from the first tick to the last, once; each run once
            assertThat(ScheduleRestartTests.ticksSince(two, "conciliarPagamentos", first))
                .containsExactlyElementsOf(expected);
            assertThat(expected).allSatisfy((taskId) -> assertThat(ScheduledFlows.sent(taskId)).isEqualTo(1));
            assertThat(ScheduleRestartTests.executions(ScheduleInstances.runtime(one), "conciliarPagamentos"))
                .extracting(SkailExecution::status).containsOnly(ExecutionStatus.COMPLETED);
        }
        assertThat(expected.size()).isGreaterThanOrEqualTo(TICKS);
        assertThat(scheduleRows()).isEqualTo(4);
    }

    @Test
    void afterBothInstancesWereDownTheFirstBackStartsTheLatestMissedTickOnce() throws Exception {
        String url = PostgreSqlForTests.url() + (PostgreSqlForTests.url().contains("?") ? "&" : "?") + "currentSchema="
                + this.schema;
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + this.schema);
        }
        String[] properties = { "schedules-test.conciliacao.cron=-" };
        Instant began = this.clock.instant();
        Instant first = this.clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofHours(1));
        try (ConfigurableApplicationContext one = ScheduleInstances.start(this.clock, url, properties);
                ConfigurableApplicationContext two = ScheduleInstances.start(this.clock, url, properties)) {
            // the clock follows the wall clock too: an hour that turned while the instances started is passed already
            Duration untilFirst = Duration.between(this.clock.instant(), first);
            if (!untilFirst.isNegative()) {
                this.clock.advance(untilFirst);
            }
            ScheduleInstances.await(two).status("relatorioDePedidos:" + first, ExecutionStatus.COMPLETED);
        }
        this.clock.advance(Duration.ofHours(10).plusMinutes(10));
        Instant latest = first.plus(Duration.ofHours(10));

        try (ConfigurableApplicationContext one = ScheduleInstances.start(this.clock, url, properties);
                ConfigurableApplicationContext two = ScheduleInstances.start(this.clock, url, properties)) {
            ScheduleInstances.await(one).status("relatorioDePedidos:" + latest, ExecutionStatus.COMPLETED);
            Instant next = latest.plus(Duration.ofHours(1));
            this.clock.advance(Duration.between(this.clock.instant(), next));
            ScheduleInstances.await(two).status("relatorioDePedidos:" + next, ExecutionStatus.COMPLETED);

            assertThat(ScheduleRestartTests.ticksSince(one, "relatorioDePedidos", began)).containsExactly(
                    "relatorioDePedidos:" + first, "relatorioDePedidos:" + latest, "relatorioDePedidos:" + next);
            assertThat(List.of(first, latest, next)).allSatisfy((tick) -> assertThat(
                    ScheduledFlows.sent("relatorioDePedidos:" + tick)).isEqualTo(1));
        }
    }

    private int scheduleRows() throws Exception {
        try (Connection connection = DriverManager.getConnection(PostgreSqlForTests.url());
                PreparedStatement ps = connection.prepareStatement("SELECT COUNT(*) FROM " + this.schema
                        + ".skail_schedule WHERE workload = 'vendas'");
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
