package dev.skail.time;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Map;

import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.Skail;
import dev.skail.runtime.SkailRuntime;
import dev.skail.test.SkailTestConfiguration;
import dev.skail.test.VirtualClock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** S6: a delay holds no thread. 10,000 executions asleep at once on 8 worker threads, then all woken. */
@SpringBootTest(classes = HibernationTests.SleepApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.worker.concurrency=8",
        "skail.worker.poll-interval=50ms", "logging.level.dev.skail=WARN" })
class HibernationTests {

    private static final int EXECUTIONS = 10_000;

    @Autowired
    SkailClient client;

    @Autowired
    SkailRuntime runtime;

    @Autowired
    VirtualClock clock;

    @Test
    void tenThousandSleepingExecutionsHoldNoThreadAndAllWake() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        // warm the worker and the store so that their threads exist before counting
        this.client.trigger("cochilar", "warm-up");
        awaitCounts("WAITING", 1);
        this.clock.advance(Duration.ofHours(1));
        awaitCounts("COMPLETED", 1);
        int before = threads.getThreadCount();

        for (int i = 0; i < EXECUTIONS; i++) {
            this.client.trigger("cochilar", "sleeper-" + i);
        }
        awaitCounts("WAITING", EXECUTIONS);

        assertThat(threads.getThreadCount()).as("threads with %d executions asleep", EXECUTIONS)
            .isLessThanOrEqualTo(before + 2);
        this.clock.advance(Duration.ofHours(1));
        awaitCounts("COMPLETED", EXECUTIONS + 1);
        assertThat(threads.getThreadCount()).isLessThanOrEqualTo(before + 2);
    }

    private void awaitCounts(String status, long expected) {
        Awaitility.await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> {
            Map<String, Long> counts = this.runtime.counts();
            return counts.getOrDefault(status, 0L) >= expected;
        });
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ Sleeper.class, SkailTestConfiguration.class })
    static class SleepApp {

    }

    public static class Sleeper {

        @SkailFunction
        public void cochilar() {
            Skail.delay(Duration.ofHours(1));
            acordar();
        }

        @SkailCommand
        public void acordar() {
        }
    }
}
