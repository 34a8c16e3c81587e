package dev.skail.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import dev.skail.SkailExecution;
import dev.skail.SkailScheduleInfo;
import dev.skail.runtime.SkailRuntime;
import dev.skail.runtime.SkailWorker;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code skail} actuator endpoint: the workload and version, the worker's state, executions per status, the
 * recent failures and the schedules; its write operation resumes a FAILED execution ({@code POST /actuator/skail} with
 * {@code {"taskId": "..."}}).
 */
@Endpoint(id = "skail")
public class SkailEndpoint {

    private static final int RECENT_FAILURES = 10;

    private final SkailRuntime runtime;

    private final @Nullable SkailWorker worker;

    public SkailEndpoint(SkailRuntime runtime, @Nullable SkailWorker worker) {
        this.runtime = runtime;
        this.worker = worker;
    }

    @ReadOperation
    public SkailDescriptor skail() {
        Map<String, Object> worker = new LinkedHashMap<>();
        if (this.worker == null) {
            worker.put("state", "disabled");
        }
        else {
            worker.put("state", this.worker.isRunning() ? (this.worker.isHealthy() ? "running" : "cannot poll")
                    : "stopped");
            worker.put("busy", this.worker.busy());
            worker.put("queued", this.worker.queued());
            worker.put("concurrency", this.worker.concurrency());
            worker.put("prefetch", this.worker.prefetch());
        }
        List<Failure> failures = this.runtime
            .search(SkailQuery.all().withStatuses(ExecutionStatus.FAILED).withSize(RECENT_FAILURES))
            .items()
            .stream()
            .map(Failure::of)
            .toList();
        return new SkailDescriptor(this.runtime.settings().workload(), this.runtime.settings().version(), worker,
                this.runtime.counts(), failures, this.runtime.schedules());
    }

    @WriteOperation
    public SkailExecution resume(String taskId) {
        return this.runtime.resume(taskId);
    }

    /**
     * What the endpoint shows.
     *
     * @param workload the workload
     * @param version its version
     * @param worker the worker's state
     * @param executions executions per status (and READY: due and not running)
     * @param recentFailures the latest FAILED executions
     * @param schedules the workload's schedules ({@code @SkailSchedule}) with their next and latest ticks
     */
    public record SkailDescriptor(String workload, String version, Map<String, Object> worker,
            Map<String, Long> executions, List<Failure> recentFailures, List<SkailScheduleInfo> schedules) {
    }

    /**
     * A failed execution.
     *
     * @param taskId its id
     * @param function its function
     * @param error the exception's class
     * @param message the exception's message
     * @param failedAt when it failed
     */
    public record Failure(String taskId, String function, @Nullable String error, @Nullable String message,
            java.time.Instant failedAt) {

        static Failure of(SkailExecution execution) {
            return new Failure(execution.taskId(), execution.function(),
                    (execution.error() != null) ? execution.error().type() : null,
                    (execution.error() != null) ? execution.error().message() : null, execution.updatedAt());
        }
    }
}
