package dev.skail.test;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;

/** Waits, in tests, until an execution reaches a status or meets a condition. */
public class SkailAwait {

    private final SkailClient client;

    private final Duration timeout;

    public SkailAwait(SkailClient client) {
        this(client, Duration.ofSeconds(30));
    }

    public SkailAwait(SkailClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
    }

    /** Waits until the execution has this status, and returns it. */
    public SkailExecution status(String taskId, ExecutionStatus status) {
        return until(taskId, (execution) -> execution.status() == status, "status " + status);
    }

    /** Waits until the execution has ended (COMPLETED, FAILED or CANCELLED), and returns it. */
    public SkailExecution ended(String taskId) {
        return until(taskId, (execution) -> execution.status().isTerminal(), "an end");
    }

    /** Waits until the execution meets the condition, and returns it. */
    public SkailExecution until(String taskId, Predicate<SkailExecution> condition, String description) {
        long deadline = System.nanoTime() + this.timeout.toNanos();
        Optional<SkailExecution> last = Optional.empty();
        while (System.nanoTime() < deadline) {
            last = this.client.find(taskId);
            if (last.isPresent() && condition.test(last.get())) {
                return last.get();
            }
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }
        throw new AssertionError("Execution '" + taskId + "' did not reach " + description + " within " + this.timeout
                + "; last seen: " + last.map(Object::toString).orElse("not found"));
    }
}
