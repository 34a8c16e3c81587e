package dev.skail.runtime;

import java.time.Clock;
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
 * Tells the store, while the worker runs, that this instance serves its workload version (S12), so that the views of
 * executions of a version no instance serves say which version they wait for.
 */
public class RuntimePresence implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(RuntimePresence.class);

    private final ExecutionStore store;

    private final RuntimeSettings settings;

    private final Clock clock;

    private volatile @Nullable ScheduledExecutorService scheduler;

    public RuntimePresence(ExecutionStore store, RuntimeSettings settings, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.clock = clock;
    }

    private void beat() {
        try {
            this.store.heartbeat(this.settings.instanceId(), this.settings.workload(), this.settings.version(),
                    this.clock.millis());
        }
        catch (RuntimeException ex) {
            logger.debug("skail could not note this runtime in the store: " + ex.getMessage());
        }
    }

    @Override
    public void start() {
        CustomizableThreadFactory threads = new CustomizableThreadFactory("skail-presence-");
        threads.setDaemon(true);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(threads);
        this.scheduler = scheduler;
        long every = Math.max(100, this.settings.leaseDuration().toMillis() / 3);
        scheduler.scheduleWithFixedDelay(this::beat, 0, every, TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        ScheduledExecutorService scheduler = this.scheduler;
        this.scheduler = null;
        if (scheduler != null) {
            scheduler.shutdownNow();
            try {
                this.store.forget(this.settings.instanceId());
            }
            catch (RuntimeException ex) {
                // its heartbeat simply ages out
            }
        }
    }

    @Override
    public boolean isRunning() {
        return this.scheduler != null;
    }
}
