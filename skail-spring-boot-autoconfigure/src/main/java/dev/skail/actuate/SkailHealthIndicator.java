package dev.skail.actuate;

import java.util.Map;

import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of skail: UP when the store answers and the worker runs, DOWN with the reason otherwise. Details: the
 * workload and version, and how many of its executions are ready, running and failed.
 */
public class SkailHealthIndicator extends AbstractHealthIndicator {

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
        Map<String, Long> counts = this.runtime.counts();
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
            builder.down().withDetail("worker", "cannot poll the store: " + worker.lastPollFailure().getMessage());
        }
        else {
            builder.up().withDetail("worker", "running " + worker.busy() + " of " + worker.concurrency());
        }
    }
}
