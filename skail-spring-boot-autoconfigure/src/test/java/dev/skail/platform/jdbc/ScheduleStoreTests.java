package dev.skail.platform.jdbc;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import dev.skail.ExecutionStatus;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The schedules' store, on each database the store runs on (subclasses): registration keeps a schedule's next tick
 * across restarts unless its cron or zone changed; a tick is started by a compare-and-set, once, however many
 * instances race for it, whatever retention deleted since.
 */
abstract class ScheduleStoreTests {

    static final long HOUR = Duration.ofHours(1).toMillis();

    static final long T0 = Instant.parse("2025-03-01T06:00:00Z").toEpochMilli();

    private final List<HikariDataSource> pools = new ArrayList<>();

    /** The database of the tests. */
    abstract SqlDialect dialect();

    /** The JDBC URL of the test's database. */
    abstract String url();

    /** Settings of a pool on {@link #url()}, e.g. the schema. */
    void configure(HikariDataSource pool) {
    }

    @AfterEach
    void closePools() {
        this.pools.forEach(HikariDataSource::close);
        this.pools.clear();
    }

    /** One instance's store: a pool of its own on the test's database. */
    JdbcExecutionStore store() {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url());
        pool.setMaximumPoolSize(4);
        configure(pool);
        this.pools.add(pool);
        JdbcExecutionStore store = new JdbcExecutionStore(pool, dialect(),
                new StoreRetry(dialect(), 3, Duration.ofMillis(1), Duration.ofMillis(5)), null);
        store.initialize();
        return store;
    }

    @Test
    void aRestartWithTheSameCronKeepsTheNextTickAndAnotherCronStartsFromNow() {
        ScheduleStore schedules = store().scheduleStore();

        ScheduleRow first = schedules.register(declared("v1", "0 0 * * * *", T0), T0 - 10);
        // restarted three hours later: the tick due at T0 is still due (missed while down)
        ScheduleRow restarted = schedules.register(declared("v2", "0 0 * * * *", T0 + 3 * HOUR), T0 + 3 * HOUR - 10);
        // a deployment with another cron: its ticks are counted from now
        ScheduleRow changed = schedules.register(declared("v3", "0 */15 * * * *", T0 + 3 * HOUR + HOUR / 4),
                T0 + 3 * HOUR + 10);

        assertThat(first.nextTick()).isEqualTo(T0);
        assertThat(restarted.nextTick()).isEqualTo(T0);
        assertThat(restarted.version()).isEqualTo("v2");
        assertThat(changed.nextTick()).isEqualTo(T0 + 3 * HOUR + HOUR / 4);
        assertThat(changed.cron()).isEqualTo("0 */15 * * * *");
        assertThat(schedules.schedules("vendas")).singleElement().isEqualTo(changed);
        assertThat(schedules.schedules("compras")).isEmpty();
    }

    @Test
    void aTickStartsOnceAndMovesTheNextTick() {
        JdbcExecutionStore store = store();
        ScheduleStore schedules = store.scheduleStore();
        ScheduleRow row = schedules.register(declared("v1", "0 0 * * * *", T0), T0 - 10);

        boolean started = schedules.fire(row, T0, T0 + HOUR, execution(T0), T0 + 5);
        boolean again = schedules.fire(row, T0, T0 + HOUR, execution(T0), T0 + 6);

        assertThat(started).isTrue();
        assertThat(again).isFalse();
        ScheduleRow stored = schedules.schedules("vendas").get(0);
        assertThat(stored.nextTick()).isEqualTo(T0 + HOUR);
        assertThat(stored.lastTick()).isEqualTo(T0);
        assertThat(stored.lastTaskId()).isEqualTo("relatorio:2025-03-01T06:00:00Z");
        assertThat(store.find("relatorio:2025-03-01T06:00:00Z")).hasValueSatisfying((execution) -> {
            assertThat(execution.status()).isEqualTo(ExecutionStatus.PENDING);
            assertThat(execution.function()).isEqualTo("relatorio");
            assertThat(execution.arguments()).isEqualTo("[]");
        });
        assertThat(store.search(dev.skail.SkailQuery.all().withFunction("relatorio"), 0, 10)).hasSize(1);
    }

    @Test
    void aTickWhoseExecutionRetentionDeletedIsNotStartedAgain() {
        JdbcExecutionStore store = store();
        ScheduleStore schedules = store.scheduleStore();
        ScheduleRow row = schedules.register(declared("v1", "0 0 * * * *", T0), T0 - 10);
        assertThat(schedules.fire(row, T0, T0 + HOUR, execution(T0), T0)).isTrue();
        delete("relatorio:2025-03-01T06:00:00Z");

        assertThat(schedules.fire(row, T0, T0 + HOUR, execution(T0), T0 + HOUR / 2)).isFalse();

        assertThat(store.find("relatorio:2025-03-01T06:00:00Z")).isEmpty();
    }

    @Test
    void anExecutionTriggeredByHandWithTheTicksIdIsTheTicks() {
        JdbcExecutionStore store = store();
        ScheduleStore schedules = store.scheduleStore();
        ScheduleRow row = schedules.register(declared("v1", "0 0 * * * *", T0), T0 - 10);
        ExecutionRow byHand = new ExecutionRow("relatorio:2025-03-01T06:00:00Z", "vendas", "v0", "relatorio", "[]",
                ExecutionStatus.PENDING, null, null, 1, 0, T0 - 5, T0 - 5, T0 - 5, null);
        store.create(byHand);

        assertThat(schedules.fire(row, T0, T0 + HOUR, execution(T0), T0)).isTrue();

        assertThat(store.find(byHand.taskId())).hasValueSatisfying((e) -> assertThat(e.version()).isEqualTo("v0"));
        assertThat(schedules.schedules("vendas").get(0).nextTick()).isEqualTo(T0 + HOUR);
    }

    @Test
    void aScheduleDisabledOrChangedByAnotherDeploymentIsNotStartedWithTheOldDeclaration() {
        ScheduleStore schedules = store().scheduleStore();
        ScheduleRow old = schedules.register(declared("v1", "0 0 * * * *", T0), T0 - 10);
        schedules.register(new ScheduleRow("vendas", "relatorio", "relatorio", "v2", "-", "UTC", "LAST", null, null,
                null, T0 - 5), T0 - 5);

        assertThat(schedules.fire(old, T0, T0 + HOUR, execution(T0), T0)).isFalse();

        ScheduleRow disabled = schedules.schedules("vendas").get(0);
        assertThat(disabled.cron()).isEqualTo("-");
        assertThat(disabled.nextTick()).isNull();
        // enabled again by a later deployment: from now
        assertThat(schedules.register(declared("v3", "0 0 * * * *", T0 + 2 * HOUR), T0 + HOUR).nextTick())
            .isEqualTo(T0 + 2 * HOUR);
    }

    @Test
    void instancesRacingForTheSameTicksStartEachOnce() throws Exception {
        int instances = 4;
        int ticks = 150;
        List<ScheduleStore> stores = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            stores.add(store().scheduleStore());
        }
        JdbcExecutionStore reader = store();
        stores.get(0).register(declared("v1", "0 0 * * * *", T0), T0 - 10);
        ExecutorService pool = Executors.newFixedThreadPool(instances);
        CyclicBarrier barrier = new CyclicBarrier(instances);
        try {
            List<Future<Integer>> started = new ArrayList<>();
            for (ScheduleStore schedules : stores) {
                started.add(pool.submit(() -> {
                    int mine = 0;
                    for (int tick = 0; tick < ticks; tick++) {
                        long at = T0 + tick * HOUR;
                        // every instance reads the schedule, then all try to start its tick at once
                        ScheduleRow row = schedules.schedules("vendas").get(0);
                        barrier.await(10, TimeUnit.SECONDS);
                        if (row.nextTick() == at && schedules.fire(row, at, at + HOUR, execution(at), at)) {
                            mine++;
                        }
                        barrier.await(10, TimeUnit.SECONDS);
                    }
                    return mine;
                }));
            }
            int total = 0;
            for (Future<Integer> one : started) {
                total += one.get(2, TimeUnit.MINUTES);
            }
            assertThat(total).isEqualTo(ticks);
        }
        finally {
            pool.shutdownNow();
        }
        List<ExecutionRow> executions = reader.search(dev.skail.SkailQuery.all().withFunction("relatorio"), 0, 1000);
        assertThat(executions).hasSize(ticks);
        assertThat(executions).extracting(ExecutionRow::taskId).doesNotHaveDuplicates()
            .contains("relatorio:2025-03-01T06:00:00Z", "relatorio:2025-03-07T11:00:00Z");
        assertThat(stores.get(0).schedules("vendas").get(0).nextTick()).isEqualTo(T0 + ticks * HOUR);
    }

    static ScheduleRow declared(String version, String cron, @Nullable Long firstTick) {
        return new ScheduleRow("vendas", "relatorio", "relatorio", version, cron, "UTC", "LAST", firstTick, null, null,
                0);
    }

    static ExecutionRow execution(long tick) {
        String id = "relatorio:" + Instant.ofEpochMilli(tick);
        return new ExecutionRow(id, "vendas", "v1", "relatorio", "[]", ExecutionStatus.PENDING, null, null, 1, 0, tick,
                tick, tick, null);
    }

    /** Deletes the execution and its history, as retention does once it has ended. */
    private void delete(String taskId) {
        try (java.sql.Connection connection = this.pools.get(0).getConnection();
                java.sql.PreparedStatement ps = connection.prepareStatement("DELETE FROM skail_execution "
                        + "WHERE task_id = ?")) {
            ps.setString(1, taskId);
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        catch (java.sql.SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
