package dev.skail.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import dev.skail.Skail;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.runtime.SkailRuntime;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * 100,000 executions asleep on a delay at once, on the default embedded platform (H2 in a file): the threads
 * held, the heap used, the time to put them to sleep and the time to wake them all (the delay is passed with a
 * virtual clock). Run it with {@code ./bin/benchmark -Dbenchmark=dev.skail.benchmarks.SleepBenchmark}.
 */
@SpringBootApplication
@Import({ SleepBenchmark.Sleeper.class, SkailTestConfiguration.class })
public class SleepBenchmark {

    public static void main(String[] args) throws Exception {
        int executions = Integer.getInteger("executions", 100_000);
        Path store = Files.createTempDirectory("skail-sleep-benchmark");
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SleepBenchmark.class)
            .web(WebApplicationType.NONE)
            .properties("skail.workload=benchmark:v1", "skail.store.directory=" + store, "logging.level.root=WARN",
                    "spring.main.banner-mode=off")
            .run(args)) {
            SkailClient client = context.getBean(SkailClient.class);
            SkailRuntime runtime = context.getBean(SkailRuntime.class);
            VirtualClock clock = context.getBean(VirtualClock.class);
            var threads = ManagementFactory.getThreadMXBean();
            int threadsBefore = threads.getThreadCount();
            long heapBefore = usedHeapAfterGc();

            long start = System.nanoTime();
            for (int i = 0; i < executions; i++) {
                client.trigger("dormir", "sleeper-" + i);
            }
            long triggered = System.nanoTime();
            await(runtime, "WAITING", executions);
            long asleep = System.nanoTime();
            int threadsAsleep = threads.getThreadCount();
            int peakThreads = threads.getPeakThreadCount();
            long heapAsleep = usedHeapAfterGc();

            clock.advance(Duration.ofHours(1));
            long wakeStart = System.nanoTime();
            await(runtime, "COMPLETED", executions);
            long awake = System.nanoTime();

            System.out.println();
            System.out.println("skail sleep benchmark: " + executions + " executions asleep on Skail.delay(1h), "
                    + "embedded H2 file store, " + Runtime.getRuntime().availableProcessors() + " cores");
            System.out.println("| figure | value |");
            System.out.println("|---|---|");
            System.out.printf("| threads before / with all asleep / peak | %d / %d / %d |%n", threadsBefore,
                    threadsAsleep, peakThreads);
            System.out.printf("| heap used after GC before / with all asleep | %.1f MB / %.1f MB |%n",
                    heapBefore / 1e6, heapAsleep / 1e6);
            System.out.printf("| time to trigger all | %.1f s |%n", (triggered - start) / 1e9);
            System.out.printf("| time to put all to sleep (trigger to WAITING) | %.1f s (%.0f/s) |%n",
                    (asleep - start) / 1e9, executions / ((asleep - start) / 1e9));
            System.out.printf("| time to wake all (advance to COMPLETED) | %.1f s (%.0f/s) |%n",
                    (awake - wakeStart) / 1e9, executions / ((awake - wakeStart) / 1e9));
        }
    }

    private static long usedHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void await(SkailRuntime runtime, String status, long expected) throws InterruptedException {
        while (true) {
            Map<String, Long> counts = runtime.counts();
            if (counts.getOrDefault(status, 0L) >= expected) {
                return;
            }
            if (counts.getOrDefault("FAILED", 0L) > 0) {
                throw new IllegalStateException("executions failed: " + counts);
            }
            Thread.sleep(250);
        }
    }

    /** The function under test. */
    public static class Sleeper {

        @SkailFunction
        public void dormir() {
            Skail.delay(Duration.ofHours(1));
            acordar();
        }

        @SkailCommand
        public void acordar() {
        }
    }
}
