package dev.skail.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;
import dev.skail.test.SkailAwait;
import dev.skail.test.SkailTestConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** Metrics, observations, the MDC, and log lines of function code not written again on replay. */
@SpringBootTest(classes = ObservabilityTests.ObservedApp.class, properties = { "skail.workload=vendas:v1.0.0",
        "skail.store.url=jdbc:h2:mem:skail-${random.uuid};DB_CLOSE_DELAY=-1", "skail.retry.backoff.initial=0ms",
        "skail.retry.backoff.max=0ms", "skail.worker.poll-interval=20ms" })
class ObservabilityTests {

    @Autowired
    SkailClient client;

    @Autowired
    SkailAwait await;

    @Autowired
    MeterRegistry meters;

    @Autowired
    TestObservationRegistry observations;

    @Autowired
    Observed observed;

    @Test
    void executionsCommandsAttemptsAndReplaysAreMeasured() {
        Map<String, Double> before = measures();

        this.client.trigger("observado", "metrics-1", "metrics-1");
        this.await.status("metrics-1", ExecutionStatus.COMPLETED);

        // the worker counts the end once the store has it: the store may show COMPLETED a moment before the counter
        Map<String, Double> after = Awaitility.await()
            .atMost(Duration.ofSeconds(10))
            .until(this::measures, (now) -> now.get("completed") - before.get("completed") >= 1);
        // one execution, whose command "instavel" failed once: two deliveries
        assertThat(after.get("started") - before.get("started")).isEqualTo(1);
        assertThat(after.get("completed") - before.get("completed")).isEqualTo(1);
        assertThat(after.get("retry") - before.get("retry")).isEqualTo(1);
        assertThat(after.get("recorded") - before.get("recorded")).isEqualTo(1);
        assertThat(after.get("failure") - before.get("failure")).isEqualTo(1);
        assertThat(after.get("success") - before.get("success")).isEqualTo(1);
        assertThat(after.get("replay") - before.get("replay")).isEqualTo(2);
        assertThat(after.get("lag") - before.get("lag")).isEqualTo(2);
        assertThat(this.meters.get("skail.backlog").gauge().value()).isGreaterThanOrEqualTo(0);
        // one timer per command: the duplicate skail.command.duration is gone
        assertThat(this.meters.find("skail.command.duration").meters()).isEmpty();
    }

    private Map<String, Double> measures() {
        return Map.of("started", count("skail.executions.started", "function", "observado"),
                "completed", count("skail.executions.ended", "function", "observado", "outcome", "completed"),
                "retry", count("skail.attempts", "step", "instavel", "decision", "RETRY"),
                "recorded", count("skail.attempts", "step", "instavel", "decision", "RECORDED"),
                // the observation skail.command is the command's timer (Boot's DefaultMeterObservationHandler)
                "failure", timed("skail.command", "command", "instavel", "outcome", "failure"),
                "success", timed("skail.command", "command", "instavel", "outcome", "success"),
                "replay", timed("skail.replay.duration", "function", "observado"),
                "lag", timed("skail.poll.lag", "function", "observado"));
    }

    private double count(String name, String... tags) {
        var counter = this.meters.find(name).tags(tags).counter();
        return (counter != null) ? counter.count() : 0;
    }

    private double timed(String name, String... tags) {
        var timer = this.meters.find(name).tags(tags).timer();
        return (timer != null) ? timer.count() : 0;
    }

    @Test
    void deliveriesAndCommandsAreObservedWithTheTaskIdAsHighCardinalityOnly() {
        this.client.trigger("observado", "observed-1", "observed-1");
        this.await.status("observed-1", ExecutionStatus.COMPLETED);

        TestObservationRegistryAssert.assertThat(this.observations).hasHandledContextsThatSatisfy((contexts) -> {
            List<io.micrometer.observation.Observation.Context> commands = contexts.stream()
                .filter((context) -> context.getName().equals("skail.command"))
                .filter((context) -> context.getHighCardinalityKeyValue("skail.task.id") != null
                        && "observed-1".equals(context.getHighCardinalityKeyValue("skail.task.id").getValue()))
                .filter((context) -> "instavel".equals(context.getLowCardinalityKeyValue("command").getValue()))
                .toList();
            assertThat(commands).hasSize(2).allSatisfy((context) -> {
                assertThat(context.getLowCardinalityKeyValue("function").getValue()).isEqualTo("observado");
                assertThat(context.getLowCardinalityKeyValue("skail.task.id")).isNull();
            });
            assertThat(commands).extracting((context) -> context.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactlyInAnyOrder("failure", "success");
        });
        TestObservationRegistryAssert.assertThat(this.observations)
            .hasObservationWithNameEqualTo("skail.delivery")
            .that()
            .hasLowCardinalityKeyValue("function", "observado")
            .hasHighCardinalityKeyValueWithKey("skail.task.id");
    }

    @Test
    void taskIdAndFunctionAreInTheMdcDuringCommandsAndTheFunction() {
        this.client.trigger("observado", "mdc-1", "mdc-1");
        this.await.status("mdc-1", ExecutionStatus.COMPLETED);

        assertThat(this.observed.mdc.get("mdc-1")).isNotEmpty().allSatisfy((mdc) -> {
            assertThat(mdc).containsEntry("skail.taskId", "mdc-1").containsEntry("skail.function", "observado");
        });
        assertThat(this.observed.mdc.get("mdc-1")).anySatisfy(
                (mdc) -> assertThat(mdc).containsEntry("skail.command", "instavel"));
    }

    @Test
    void logLineOfFunctionCodeIsNotWrittenAgainWhileReplaying() {
        assertThat(((ch.qos.logback.classic.LoggerContext) LoggerFactory.getILoggerFactory()).getTurboFilterList())
            .as("turbo filters").hasAtLeastOneElementOfType(dev.skail.logging.ReplayedLogFilter.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        Logger logger = (Logger) LoggerFactory.getLogger("app.pedidos");
        logger.addAppender(appender);
        try {
            this.client.trigger("observado", "log-1", "log-1");
            this.await.status("log-1", ExecutionStatus.COMPLETED);
        }
        finally {
            logger.detachAppender(appender);
        }

        // two deliveries (instavel failed once); the line before it was written on the first one only
        assertThat(this.observed.bodies.get("log-1")).hasValue(2);
        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
            .filteredOn((line) -> line.contains("log-1")).containsExactly("processing log-1");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ Observed.class, SkailTestConfiguration.class })
    static class ObservedApp {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }

    public static class Observed {

        // an application's logger (the runtime's own loggers, dev.skail.actuate among them, are never dropped)
        static final org.slf4j.Logger log = LoggerFactory.getLogger("app.pedidos");

        final Map<String, List<Map<String, String>>> mdc = new ConcurrentHashMap<>();

        final Map<String, AtomicInteger> bodies = new ConcurrentHashMap<>();

        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        @SkailFunction
        public void observado(String id) {
            this.bodies.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet();
            this.mdc.computeIfAbsent(id, (k) -> new CopyOnWriteArrayList<>()).add(MDC.getCopyOfContextMap());
            estavel(id);
            log.info("processing " + id);
            instavel(id);
        }

        @SkailCommand
        public void estavel(String id) {
        }

        @SkailCommand
        public void instavel(String id) {
            this.mdc.get(SkailContext.current().taskId()).add(MDC.getCopyOfContextMap());
            if (this.runs.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IllegalStateException("first run fails");
            }
        }
    }
}
