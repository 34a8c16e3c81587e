package dev.skail.runtime;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailStep;
import org.awaitility.Awaitility;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** Base of the runtime's Spring Boot tests: an in-memory store, no backoff, fast polling. */
@SpringBootTest(classes = TestApplication.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms", "skail.worker.concurrency=4" })
public abstract class SkailTestSupport {

    @Autowired
    protected SkailClient client;

    @Autowired
    protected Effects effects;

    protected SkailExecution awaitStatus(String taskId, ExecutionStatus status) {
        return awaitExecution(taskId, (execution) -> execution.status() == status);
    }

    protected SkailExecution awaitExecution(String taskId, Predicate<SkailExecution> condition) {
        return Awaitility.await()
            .atMost(Duration.ofSeconds(20))
            .pollInterval(Duration.ofMillis(10))
            .until(() -> this.client.find(taskId).orElse(null), (execution) -> execution != null
                    && condition.test(execution));
    }

    protected List<SkailStep> steps(String taskId) {
        return this.client.history(taskId).steps();
    }

    protected SkailHistory history(String taskId) {
        return this.client.history(taskId);
    }

    protected static void assertStepNames(List<SkailStep> steps, String... names) {
        assertThat(steps).extracting(SkailStep::name).containsExactly(names);
    }
}
