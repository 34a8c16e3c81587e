package dev.skail.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailExecution;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.SkailFunction;
import dev.skail.runtime.SkailRuntime;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * The core benchmark: a function of 10 no-op commands on the default embedded platform (H2 in a file), run 200
 * times one after another (latency per execution: median and p99) and 2,000 at once (executions/s, steps/s).
 * Run it with {@code ./bin/benchmark}; it prints a table.
 */
@SpringBootApplication
@Import(CoreBenchmark.TenSteps.class)
public class CoreBenchmark {

    static final int STEPS = 10;

    public static void main(String[] args) throws Exception {
        int sequential = Integer.getInteger("sequential", 200);
        int burst = Integer.getInteger("burst", 2000);
        Path store = Files.createTempDirectory("skail-benchmark");
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(CoreBenchmark.class)
            .web(WebApplicationType.NONE)
            .properties("skail.workload=benchmark:v1", "skail.store.directory=" + store,
                    "logging.level.root=WARN", "spring.main.banner-mode=off")
            .run(args)) {
            SkailClient client = context.getBean(SkailClient.class);
            SkailRuntime runtime = context.getBean(SkailRuntime.class);

            // warm-up: JIT, pool, schema
            runSequential(client, "warmup-", 50);

            long[] latencies = runSequential(client, "seq-", sequential);
            Arrays.sort(latencies);

            long start = System.nanoTime();
            for (int i = 0; i < burst; i++) {
                client.trigger("tenSteps", "burst-" + i);
            }
            long triggered = System.nanoTime();
            awaitAllCompleted(runtime, 50 + sequential + burst);
            long end = System.nanoTime();

            double seconds = (end - start) / 1e9;
            System.out.println();
            System.out.println("skail core benchmark: function of " + STEPS + " no-op commands, embedded H2 file store, "
                    + Runtime.getRuntime().availableProcessors() + " cores, worker concurrency "
                    + context.getEnvironment().getProperty("skail.worker.concurrency", "default"));
            System.out.println("| scenario | figure |");
            System.out.println("|---|---|");
            System.out.printf("| %d in sequence: median per execution | %.1f ms |%n", sequential,
                    latencies[latencies.length / 2] / 1e6);
            System.out.printf("| %d in sequence: p99 per execution | %.1f ms |%n", sequential,
                    latencies[(int) Math.ceil(latencies.length * 0.99) - 1] / 1e6);
            System.out.printf("| %d at once: time to trigger all | %.2f s |%n", burst, (triggered - start) / 1e9);
            System.out.printf("| %d at once: time to complete all | %.2f s |%n", burst, seconds);
            System.out.printf("| %d at once: executions/s | %.0f |%n", burst, burst / seconds);
            System.out.printf("| %d at once: steps/s | %.0f |%n", burst, burst * STEPS / seconds);
            if (context.getBean(ExecutionStore.class) instanceof JdbcExecutionStore jdbc) {
                jdbc.syncs().ifPresent((syncs) -> System.out.printf(
                        "| durability: commits synced to disk before acknowledged / syncs (fsync) | %d / %d (%.2f syncs per commit) |%n",
                        syncs.commits(), syncs.syncs(), (double) syncs.syncs() / Math.max(1, syncs.commits())));
            }
        }
    }

    private static long[] runSequential(SkailClient client, String prefix, int count) {
        long[] latencies = new long[count];
        for (int i = 0; i < count; i++) {
            String taskId = prefix + i;
            long start = System.nanoTime();
            // the caller's one way to learn the end: the handle, signalled by the runtime (no polling)
            SkailExecution ended = client.trigger("tenSteps", taskId).await(Duration.ofMinutes(1));
            if (ended.status() != ExecutionStatus.COMPLETED) {
                throw new IllegalStateException(taskId + " ended " + ended.status());
            }
            latencies[i] = System.nanoTime() - start;
        }
        return latencies;
    }

    private static void awaitAllCompleted(SkailRuntime runtime, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (System.nanoTime() < deadline) {
            Map<String, Long> counts = runtime.counts();
            if (counts.getOrDefault("COMPLETED", 0L) >= expected) {
                return;
            }
            if (counts.getOrDefault("FAILED", 0L) > 0) {
                throw new IllegalStateException("executions failed: " + counts);
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("not all executions completed in 10 minutes: " + runtime.counts());
    }

    /** The function under test. */
    public static class TenSteps {

        @SkailFunction
        public int tenSteps() {
            int sum = 0;
            for (int i = 0; i < STEPS; i++) {
                sum += noop(i);
            }
            return sum;
        }

        @SkailCommand
        public int noop(int i) {
            return i;
        }
    }
}
