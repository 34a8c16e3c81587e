package dev.skail.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.skail.ExecutionStatus;
import dev.skail.SkailSchedule;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import dev.skail.platform.StoreDeadline;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Starts the executions of the workload's schedules ({@link SkailSchedule}), on one thread of its own whatever the
 * number of schedules. At start it registers each declared schedule in the store (see
 * {@link ScheduleStore#register}); then it reads the workload's schedules when the earliest next tick is due, and at
 * least every {@code skail.schedules.poll-interval}, and starts each due tick through the store's compare-and-set
 * ({@link ScheduleStore#fire}), so that of every instance racing for a tick exactly one starts it. Time is skail's
 * clock: a {@code VirtualClock} drives it in tests ({@link #nudge()} after advancing it).
 * <p>
 * A tick found due long after its time (every instance was down over several ticks) follows the schedule's
 * {@link SkailSchedule.Missed} policy: {@code LAST} starts the latest missed tick only, {@code ALL} each of them. A
 * schedule stored with another cron or zone than this runtime declares (another deployment changed it) is left to
 * the instances that declare it so; this one starts it again once it restarts with that declaration, or registers
 * its own.
 */
public class SkailScheduler implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(SkailScheduler.class);

    /** The most ticks one poll starts (a catch-up of {@code ALL} missed ticks goes on at the next poll, at once). */
    static final int TICKS_PER_POLL = 100;

    private final SkailRuntime runtime;

    private final ScheduleStore store;

    private final Clock clock;

    private final Duration pollInterval;

    private final AtomicBoolean pollPending = new AtomicBoolean();

    private final Set<String> reportedDifferences = ConcurrentHashMap.newKeySet();

    private volatile @Nullable ScheduledThreadPoolExecutor executor;

    private volatile @Nullable ScheduledFuture<?> nextPoll;

    private volatile boolean running;

    private volatile boolean registered;

    private volatile @Nullable Throwable lastFailure;

    /**
     * @param runtime the runtime whose catalog declares the schedules and whose worker runs their executions
     * @param store where the schedules are kept
     * @param clock skail's clock
     * @param pollInterval the longest time between two reads of the schedules
     */
    public SkailScheduler(SkailRuntime runtime, ScheduleStore store, Clock clock, Duration pollInterval) {
        this.runtime = runtime;
        this.store = store;
        this.clock = clock;
        this.pollInterval = pollInterval.isNegative() || pollInterval.isZero() ? Duration.ofSeconds(1) : pollInterval;
    }

    @Override
    public void start() {
        if (this.runtime.catalog().schedules().isEmpty()) {
            this.running = true; // nothing to start: no thread, no reads
            return;
        }
        CustomizableThreadFactory threads = new CustomizableThreadFactory("skail-scheduler-");
        threads.setDaemon(true);
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, threads);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
        this.executor = executor;
        this.registered = false;
        // a poll queued when the previous executor was shut down never ran: it must not block the next nudge
        this.pollPending.set(false);
        this.running = true;
        // at once, so that the schedules read after start-up are this deployment's; a store that does not answer
        // quickly leaves it to the scheduler's thread, which tries again until it does
        try {
            StoreDeadline.within(Duration.ofSeconds(2), () -> {
                register();
                return null;
            });
            this.registered = true;
        }
        catch (RuntimeException ex) {
            logger.warn("skail scheduler could not register the schedules yet; it tries again: " + ex.getMessage());
        }
        nudge();
        logger.info("skail scheduler started for " + this.runtime.settings().workload() + ":"
                + this.runtime.settings().version() + " (" + this.runtime.catalog().schedules().size()
                + " schedule(s), read at least every " + this.pollInterval.toMillis() + " ms)");
    }

    /** Reads the schedules at once, e.g. after a virtual clock was advanced, instead of at the next due tick. */
    public void nudge() {
        ScheduledThreadPoolExecutor executor = this.executor;
        if (this.running && executor != null && this.pollPending.compareAndSet(false, true)) {
            try {
                executor.execute(this::poll);
            }
            catch (RuntimeException ex) {
                this.pollPending.set(false);
            }
        }
    }

    private void poll() {
        this.pollPending.set(false);
        ScheduledThreadPoolExecutor executor = this.executor;
        if (!this.running || executor == null) {
            return;
        }
        ScheduledFuture<?> scheduled = this.nextPoll;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        long delay = this.pollInterval.toMillis();
        try {
            if (!this.registered) {
                register();
                this.registered = true;
            }
            delay = startDueTicks();
            if (!this.registered) {
                delay = 0; // a schedule to register again (deleted by hand, or left by a version that stopped)
            }
            if (this.lastFailure != null) {
                logger.info("skail scheduler reaches the store again");
            }
            this.lastFailure = null;
        }
        catch (RuntimeException | Error ex) {
            // an Error too: the thread reschedules itself below, or no schedule would ever fire again
            if (this.lastFailure == null) {
                logger.warn("skail scheduler could not read or start the schedules; it tries again in "
                        + Math.min(delay, 1000) + " ms: " + ex.getMessage());
            }
            this.lastFailure = ex;
            delay = Math.min(delay, 1000);
        }
        if (this.running) {
            try {
                this.nextPoll = executor.schedule(this::poll, Math.max(0, delay), TimeUnit.MILLISECONDS);
            }
            catch (RuntimeException ex) {
                // stopping
            }
        }
    }

    /** Notes every declared schedule in the store (a new one due at its first tick after now). */
    void register() {
        long now = this.clock.millis();
        RuntimeSettings settings = this.runtime.settings();
        for (ScheduleDefinition schedule : this.runtime.catalog().schedules()) {
            Instant first = schedule.next(Instant.ofEpochMilli(now));
            ScheduleRow declared = new ScheduleRow(settings.workload(), schedule.function(), schedule.function(),
                    settings.version(), schedule.cron(), schedule.zone().getId(), schedule.missed().name(),
                    (first != null) ? first.toEpochMilli() : null, null, null, now);
            ScheduleRow stored = this.store.register(declared, now);
            if (!schedule.enabled()) {
                logger.info("skail schedule '" + schedule.function() + "' is disabled (cron '-')");
            }
            else if (logger.isInfoEnabled()) {
                logger.info("skail schedule '" + schedule.function() + "' (cron '" + schedule.cron() + "', zone "
                        + schedule.zone().getId() + "): next tick " + ((stored.nextTick() != null)
                                ? Instant.ofEpochMilli(stored.nextTick()) : "none"));
            }
        }
    }

    /**
     * Starts the ticks that are due, and says when to read again.
     * @return milliseconds until the earliest next tick, at most the poll interval
     */
    long startDueTicks() {
        List<ScheduleDefinition> enabled = this.runtime.catalog().schedules().stream()
            .filter(ScheduleDefinition::enabled)
            .toList();
        if (enabled.isEmpty()) {
            return this.pollInterval.toMillis();
        }
        Map<String, ScheduleRow> stored = stored();
        Long earliest = null;
        int started = 0;
        for (ScheduleDefinition schedule : enabled) {
            ScheduleRow row = stored.get(schedule.function());
            if (row == null) {
                this.registered = false; // deleted by hand: registered again at the next poll
                continue;
            }
            for (int tries = 0; row != null && started < TICKS_PER_POLL && tries < TICKS_PER_POLL; tries++) {
                if (!declaresTheSame(schedule, row)) {
                    row = null;
                    break;
                }
                Long next = row.nextTick();
                long now = this.clock.millis();
                if (next == null || next > now) {
                    break;
                }
                if (start(schedule, row, Instant.ofEpochMilli(next), Instant.ofEpochMilli(now))) {
                    started++;
                }
                // as it stands now: moved by this instance, or by another that started the tick first
                row = stored().get(schedule.function());
            }
            if (row != null && row.nextTick() != null && declaresTheSame(schedule, row)) {
                earliest = (earliest == null) ? row.nextTick() : Math.min(earliest, row.nextTick());
            }
        }
        if (started >= TICKS_PER_POLL) {
            return 0;
        }
        long interval = this.pollInterval.toMillis();
        return (earliest == null) ? interval : Math.max(0, Math.min(interval, earliest - this.clock.millis()));
    }

    private Map<String, ScheduleRow> stored() {
        return this.store.schedules(this.runtime.settings().workload()).stream()
            .collect(Collectors.toMap(ScheduleRow::name, Function.identity()));
    }

    /** Starts the tick due at {@code due}, or the latest one due by {@code now} when missed ticks are skipped. */
    private boolean start(ScheduleDefinition schedule, ScheduleRow row, Instant due, Instant now) {
        Instant tick = (schedule.missed() == SkailSchedule.Missed.ALL) ? due : schedule.latestDue(due, now);
        Instant following = schedule.next(tick);
        RuntimeSettings settings = this.runtime.settings();
        String taskId = schedule.taskId(tick);
        long at = now.toEpochMilli();
        ExecutionRow execution = new ExecutionRow(taskId, settings.workload(), settings.version(), schedule.function(),
                "[]", ExecutionStatus.PENDING, null, null, 1, 0, at, at, at, null);
        if (!this.store.fire(row, tick.toEpochMilli(), (following != null) ? following.toEpochMilli() : null,
                execution, at)) {
            return false;
        }
        if (tick.isAfter(due)) {
            logger.warn("skail schedule '" + schedule.function() + "' missed its ticks from " + due + " to before "
                    + tick + " (no instance ran then); as its missed policy is LAST, it starts only the latest, "
                    + tick);
        }
        logger.info("skail schedule '" + schedule.function() + "' started execution '" + taskId + "'");
        this.runtime.instrumentation().executionStarted(schedule.function());
        this.runtime.newWork();
        return true;
    }

    /** Whether the stored schedule has the ticks this runtime declares; a difference is reported once. */
    private boolean declaresTheSame(ScheduleDefinition schedule, ScheduleRow row) {
        if (row.cron().equals(schedule.cron()) && row.zone().equals(schedule.zone().getId())) {
            this.reportedDifferences.remove(schedule.function());
            return true;
        }
        // the version that stored it no longer runs (a rolling deployment whose old instance registered last, then
        // stopped): nobody would start its ticks, so this runtime registers its own declaration again
        java.util.Set<String> served = this.runtime.versionsServed(this.runtime.settings().workload());
        if (served != null && !row.version().equals(this.runtime.settings().version())
                && !served.contains(row.version())) {
            logger.warn("skail schedule '" + schedule.function() + "' is stored with cron '" + row.cron() + "' by version "
                    + row.version() + ", which no instance serves any more: this runtime registers its own, cron '"
                    + schedule.cron() + "' in zone " + schedule.zone().getId());
            this.registered = false;
            return false;
        }
        if (this.reportedDifferences.add(schedule.function())) {
            logger.warn("skail schedule '" + schedule.function() + "' is stored with cron '" + row.cron() + "' and zone "
                    + row.zone() + " (declared by version " + row.version() + "), this runtime declares cron '"
                    + schedule.cron() + "' and zone " + schedule.zone().getId() + ": the instances that declare the "
                    + "stored one start its ticks; this one does again once it restarts");
        }
        return false;
    }

    @Override
    public void stop() {
        this.running = false;
        ScheduledThreadPoolExecutor executor = this.executor;
        this.executor = null;
        if (executor == null) {
            return;
        }
        // a tick being started finishes its transaction: it is one, committed whole or not at all
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** Whether the last read of the schedules reached the store. */
    public boolean isHealthy() {
        return this.running && this.lastFailure == null;
    }

    @Override
    public int getPhase() {
        // started after the worker (which runs the executions it starts), stopped before it
        return Integer.MAX_VALUE - 1023;
    }
}
