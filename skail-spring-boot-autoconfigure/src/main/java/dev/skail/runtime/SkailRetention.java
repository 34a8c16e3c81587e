package dev.skail.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.skail.platform.ExecutionStore;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Deletes executions that ended longer ago than {@code skail.retention.ended-after}, with their histories, in small
 * batches on a thread of its own, so the store does not grow forever. Each instance sharing a store may run it: a
 * batch is one transaction, and a second instance deleting the same rows finds them gone.
 */
public class SkailRetention implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(SkailRetention.class);

    private final ExecutionStore store;

    private final Clock clock;

    private final Duration keep;

    private final Duration interval;

    private final int batchSize;

    private volatile @Nullable ScheduledExecutorService scheduler;

    private volatile boolean stopped;

    /**
     * @param store the store
     * @param clock skail's clock
     * @param keep how long an ended execution is kept
     * @param interval how often ended executions are looked for
     * @param batchSize how many executions one transaction deletes at most
     */
    public SkailRetention(ExecutionStore store, Clock clock, Duration keep, Duration interval, int batchSize) {
        this.store = store;
        this.clock = clock;
        this.keep = keep;
        this.interval = interval;
        this.batchSize = batchSize;
    }

    /**
     * Deletes, batch after batch, every execution that ended before the retention period.
     * @return how many executions were deleted
     */
    public int deleteEnded() {
        long endedBefore = this.clock.millis() - this.keep.toMillis();
        int total = 0;
        int deleted;
        do {
            deleted = this.store.deleteEndedBefore(endedBefore, this.batchSize);
            total += deleted;
        }
        while (deleted == this.batchSize && !this.stopped);
        if (total > 0) {
            logger.info("skail retention deleted " + total + " execution(s) that ended before "
                    + java.time.Instant.ofEpochMilli(endedBefore));
        }
        return total;
    }

    private void run() {
        try {
            deleteEnded();
        }
        catch (RuntimeException ex) {
            logger.warn("skail retention could not delete ended executions; it tries again in " + this.interval + ": "
                    + ex.getMessage());
        }
    }

    @Override
    public void start() {
        this.stopped = false;
        CustomizableThreadFactory threads = new CustomizableThreadFactory("skail-retention-");
        threads.setDaemon(true);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(threads);
        this.scheduler = scheduler;
        long every = Math.max(1, this.interval.toMillis());
        scheduler.scheduleWithFixedDelay(this::run, every, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        this.stopped = true;
        ScheduledExecutorService scheduler = this.scheduler;
        this.scheduler = null;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    @Override
    public boolean isRunning() {
        return this.scheduler != null;
    }
}
