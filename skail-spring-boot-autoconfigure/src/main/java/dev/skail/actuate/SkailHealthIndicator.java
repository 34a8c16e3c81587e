package dev.skail.actuate;

import java.time.Duration;
import java.util.Map;

import dev.skail.SkailUnavailableException;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of skail: UP when the store answers and the worker runs, DOWN with the reason otherwise. Details: the
 * workload and version, and how many of its executions are ready, running and failed. It answers within a second,
 * whatever the store does: the store is probed once, without the retries of the worker, under a short deadline (a
 * store that is unreachable, not ready yet or whose disk is full is DOWN with the reason in {@code error}), and the
 * worker's last poll counts too.
 */
public class SkailHealthIndicator extends AbstractHealthIndicator {

    /** How long a health check waits for the store. */
    static final Duration PROBE_TIMEOUT = Duration.ofMillis(800);

    private final SkailRuntime runtime;

    private final @Nullable SkailWorker worker;

    public SkailHealthIndicator(SkailRuntime runtime, @Nullable SkailWorker worker) {
        super("skail health check failed");
        this.runtime = runtime;
        this.worker = worker;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("workload", this.runtime.settings().workload())
            .withDetail("version", this.runtime.settings().version());
        Map<String, Long> counts;
        try {
            counts = this.runtime.probe(PROBE_TIMEOUT);
        }
        catch (StoreUnavailableException | SkailUnavailableException ex) {
            builder.down().withDetail("store", "unavailable").withDetail("error", String.valueOf(ex.getMessage()));
            SkailWorker worker = this.worker;
            if (worker != null) {
                // the worker polls again on its own; it is nudged so that it finds the store back at once
                worker.nudge();
            }
            return;
        }
        builder.withDetail("store", "reachable");
        builder.withDetail("ready", counts.getOrDefault("READY", 0L))
            .withDetail("running", counts.getOrDefault("RUNNING", 0L))
            .withDetail("waiting", counts.getOrDefault("WAITING", 0L))
            .withDetail("failed", counts.getOrDefault("FAILED", 0L))
            .withDetail("completed", counts.getOrDefault("COMPLETED", 0L));
        SkailWorker worker = this.worker;
        if (worker == null) {
            builder.up().withDetail("worker", "disabled");
        }
        else if (!worker.isRunning()) {
            builder.down().withDetail("worker", "stopped");
        }
        else if (worker.lastPollFailure() != null) {
            worker.nudge();
            builder.down().withDetail("worker", "cannot poll the store: " + worker.lastPollFailure().getMessage());
        }
        else {
            int queued = worker.queued();
            builder.up().withDetail("worker", "running " + Math.max(0, worker.busy() - queued) + " of "
                    + worker.concurrency() + ((queued > 0) ? ", " + queued + " queued" : ""));
        }
    }
}
