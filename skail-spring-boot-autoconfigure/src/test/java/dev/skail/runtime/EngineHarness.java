package dev.skail.runtime;

import java.lang.reflect.Modifier;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.skail.SkailError;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.test.VirtualClock;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.objenesis.SpringObjenesis;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.fail;

/**
 * A runtime without Spring for fast engine tests: one bean (its class enhanced as the starter enhances it), a store
 * (an {@link InMemoryExecutionStore} unless told otherwise), a {@link VirtualClock} that only moves when the test advances it, zero backoff,
 * and deliveries run on the calling thread, one after another, by {@link #runUntilQuiet(String)}.
 */
final class EngineHarness implements AutoCloseable {

    static final String WORKLOAD = "vendas";

    static final String VERSION = "v1.0.0";

    static final String OWNER = "engine-tests";

    static final Duration LEASE = Duration.ofMinutes(5);

    /** More deliveries than this for one quiet point means the execution does not settle. */
    private static final int MAX_DELIVERIES = 100;

    final ExecutionStore store;

    final VirtualClock clock = new VirtualClock(Clock.fixed(Instant.parse("2025-03-10T12:00:00Z"), ZoneOffset.UTC));

    final SkailRuntime runtime;

    private int deliveries;

    private EngineHarness(Object prototype, ExecutionStore store, SkailJson json) {
        this.store = store;
        Class<?> userClass = prototype.getClass();
        Object bean = enhancedCopy(prototype);
        Map<String, FunctionDefinition> functions = new HashMap<>();
        for (StepMethod step : SkailBeanEnhancer.stepMethods(userClass)) {
            if (step.function()) {
                functions.put(step.name(), new FunctionDefinition(step, "flows"));
            }
        }
        SkailCatalog catalog = new SkailCatalog(functions);
        this.runtime = new SkailRuntime(this.store, () -> catalog, new StaticListableBeanFactory(Map.of("flows", bean)),
                json, this.clock, new RuntimeSettings(WORKLOAD, VERSION, OWNER, LEASE,
                        new Backoff(Duration.ZERO, 1, Duration.ZERO)));
    }

    /**
     * A harness whose bean is an instance of the prototype's class, enhanced, with the prototype's fields (shared
     * objects, such as counters, stay shared with the test).
     */
    static EngineHarness of(Object prototype) {
        return of(prototype, new InMemoryExecutionStore(), SkailJson.createDefault());
    }

    /** {@link #of(Object)} over this store, with this JSON codec. */
    static EngineHarness of(Object prototype, ExecutionStore store, SkailJson json) {
        return new EngineHarness(prototype, store, json);
    }

    /** Triggers the function with these arguments under this id. */
    SkailRuntime.Triggered trigger(String function, String taskId, Object... arguments) {
        return this.runtime.trigger(WORKLOAD, VERSION, function, taskId, this.runtime.encode(function, arguments));
    }

    /** Fires an event whose payload is this value, as JSON. */
    void fire(String taskId, String event, @Nullable Object payload) {
        this.runtime.fire(WORKLOAD, VERSION, taskId, event, this.runtime.json().write(payload));
    }

    /**
     * Claims and delivers whatever is due, on this thread, until nothing is; fails the test if that does not happen
     * within {@value #MAX_DELIVERIES} deliveries.
     * @return the execution as it stands then
     */
    ExecutionRow runUntilQuiet(String taskId) {
        int start = this.deliveries;
        while (this.deliveries - start <= MAX_DELIVERIES) {
            List<Lease> leases = claim();
            if (leases.isEmpty()) {
                return execution(taskId);
            }
            leases.forEach(this::deliver);
        }
        return fail("execution '" + taskId + "' did not settle within " + MAX_DELIVERIES + " deliveries; it is "
                + execution(taskId));
    }

    /** Claims what is due now, as a worker's poll would. */
    List<Lease> claim() {
        long now = this.clock.millis();
        return this.store.claimDue(WORKLOAD, VERSION, OWNER, 10, now, now + LEASE.toMillis(), Set.of());
    }

    /** Runs one delivery on this thread. */
    void deliver(Lease lease) {
        this.deliveries++;
        this.runtime.deliver(lease);
    }

    /** How many deliveries ran so far. */
    int deliveries() {
        return this.deliveries;
    }

    void advance(Duration duration) {
        this.clock.advance(duration);
    }

    /** The recorded error of the execution. */
    SkailError error(String taskId) {
        SkailError error = this.runtime.json().readError(execution(taskId).error());
        if (error == null) {
            return fail("execution '" + taskId + "' has no error; it is " + execution(taskId));
        }
        return error;
    }

    /** The execution's result, read as this type. */
    <T> @Nullable T result(String taskId, Class<T> type) {
        return type.cast(this.runtime.json().read(execution(taskId).result(), type));
    }

    /** The execution as stored. */
    ExecutionRow execution(String taskId) {
        return stored(taskId).execution();
    }

    /** Its steps, by position. */
    List<StepRow> steps(String taskId) {
        return stored(taskId).steps();
    }

    /** Its attempts, by position, function attempt and number (the function's own first: position -1). */
    List<AttemptRow> attempts(String taskId) {
        return stored(taskId).attempts();
    }

    /** The events fired at it, in order of arrival. */
    List<EventRow> events(String taskId) {
        return stored(taskId).events();
    }

    private StoredHistory stored(String taskId) {
        return this.store.history(taskId).orElseGet(() -> fail("no execution '" + taskId + "'"));
    }

    @Override
    public void close() {
        this.runtime.close();
    }

    /** As {@link LocalReplay}: an instance of the generated subclass carrying every instance field of the bean. */
    private static Object enhancedCopy(Object bean) {
        Class<?> userClass = bean.getClass();
        Object copy = new SpringObjenesis().newInstance(SkailBeanEnhancer.enhance(userClass));
        ReflectionUtils.doWithFields(userClass, (field) -> {
            ReflectionUtils.makeAccessible(field);
            field.set(copy, field.get(bean));
        }, (field) -> !Modifier.isStatic(field.getModifiers()));
        return copy;
    }
}
