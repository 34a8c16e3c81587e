package dev.skail.actuate;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.skail.runtime.SkailInstrumentation;
import dev.skail.runtime.SkailRuntime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * skail's metrics and observations with Micrometer.
 * <ul>
 * <li>{@code skail.executions.started} (function), {@code skail.executions.ended} (function, outcome):
 * counters;</li>
 * <li>{@code skail.attempts} (function, step, outcome, decision): counter of recorded attempts;</li>
 * <li>{@code skail.replay.duration} (function): timer of the replay of recorded steps in a delivery;</li>
 * <li>{@code skail.poll.lag} (function): timer of how late a delivery started after it was due;</li>
 * <li>{@code skail.backlog}: gauge of executions due and not running.</li>
 * </ul>
 * Observations {@code skail.delivery} (function, outcome) and {@code skail.command} (function, command, outcome)
 * carry the task id as a high-cardinality key value only. With Boot's observation auto-configuration (or, when the
 * application has no {@link ObservationRegistry}, the one this class builds) each observation is also a timer of the
 * same name ({@code skail.command}: function, command, outcome, error): commands are timed once, by their observation.
 */
public class MicrometerSkailInstrumentation implements SkailInstrumentation {

    /** The high-cardinality key of the task id. */
    public static final String TASK_ID = "skail.task.id";

    private final MeterRegistry meters;

    private final ObservationRegistry observations;

    /**
     * An {@link ObservationRegistry} whose observations are timers of {@code meters}: what skail uses when the
     * application has none, so that {@code skail.command} and {@code skail.delivery} are still measured.
     */
    public static ObservationRegistry meterBacked(MeterRegistry meters) {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        return registry;
    }

    public MicrometerSkailInstrumentation(MeterRegistry meters, ObservationRegistry observations,
            SkailRuntime runtime) {
        this.meters = meters;
        this.observations = observations;
        Gauge.builder("skail.backlog", runtime, (r) -> r.counts().getOrDefault("READY", 0L))
            .description("Executions due and not running")
            .tag("workload", runtime.settings().workload())
            .register(meters);
    }

    @Override
    public void executionStarted(String function) {
        Counter.builder("skail.executions.started").tag("function", function).register(this.meters).increment();
    }

    @Override
    public void executionEnded(String function, String outcome) {
        Counter.builder("skail.executions.ended")
            .tag("function", function)
            .tag("outcome", outcome)
            .register(this.meters)
            .increment();
    }

    @Override
    public void attempt(String function, String step, String outcome, String decision) {
        Counter.builder("skail.attempts")
            .tag("function", function)
            .tag("step", step)
            .tag("outcome", outcome)
            .tag("decision", decision)
            .register(this.meters)
            .increment();
    }

    @Override
    public void replayed(String function, long nanos) {
        Timer.builder("skail.replay.duration").tag("function", function).register(this.meters)
            .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public Span delivery(String taskId, String function, long lagMillis) {
        Timer.builder("skail.poll.lag").tag("function", function).register(this.meters)
            .record(Duration.ofMillis(lagMillis));
        Observation observation = Observation.createNotStarted("skail.delivery", this.observations)
            .contextualName("skail delivery " + function)
            .lowCardinalityKeyValue("function", function)
            .highCardinalityKeyValue(TASK_ID, taskId)
            .start();
        return (outcome) -> observation.lowCardinalityKeyValue("outcome", outcome).stop();
    }

    @Override
    public Span command(String taskId, String function, String command) {
        Observation observation = Observation.createNotStarted("skail.command", this.observations)
            .contextualName("skail command " + command)
            .lowCardinalityKeyValue("function", function)
            .lowCardinalityKeyValue("command", command)
            .highCardinalityKeyValue(TASK_ID, taskId)
            .start();
        Observation.Scope scope = observation.openScope();
        return (outcome) -> {
            scope.close();
            observation.lowCardinalityKeyValue("outcome", outcome).stop();
        };
    }
}
