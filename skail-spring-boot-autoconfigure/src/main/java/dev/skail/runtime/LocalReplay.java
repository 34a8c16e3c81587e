package dev.skail.runtime;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailQuery;
import dev.skail.SkailStep;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.objenesis.SpringObjenesis;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Replays an exported history against the current code, in memory: no store, no worker, no effects. Recorded steps
 * return their recorded outcomes; the replay stops where the history ends. A divergence throws
 * {@link dev.skail.SkailNonDeterministicException} naming the step. Used by {@code dev.skail.test.SkailReplayer}.
 */
public final class LocalReplay {

    private final SkailHistory history;

    private final SkailJson json;

    public LocalReplay(SkailHistory history, SkailJson json) {
        this.history = history;
        this.json = json;
    }

    /**
     * Replays the history's function on {@code bean}, an instance of the class that declares it (its dependencies
     * may be stubs: commands do not run).
     */
    public Outcome replay(Object bean) {
        SkailExecution execution = this.history.execution();
        Method method = functionOf(bean.getClass(), execution.function());
        Object replayed = enhancedCopy(bean);
        StaticListableBeanFactory beans = new StaticListableBeanFactory(Map.of("replayed", replayed));
        FunctionDefinition definition = new FunctionDefinition(StepMethod.of(method), "replayed");
        Clock clock = Clock.fixed(lastRecordedTime(), ZoneOffset.UTC);
        SkailRuntime runtime = new SkailRuntime(new HistoryStore(stored()), () -> new SkailCatalog(Map.of(
                definition.name(), definition)), beans, this.json, clock, new RuntimeSettings(execution.workload(),
                        execution.version(), "local-replay", Duration.ofDays(1), new Backoff(Duration.ZERO, 1,
                                Duration.ZERO)),
                // the exceptions of the function's own package are rebuilt, as the application's are at runtime
                new ExceptionCodec(List.of(ClassUtils.getUserClass(bean.getClass()).getPackageName()),
                        (type) -> declares(method.getDeclaringClass(), type)));
        runtime.replayOnly();
        try {
            Lease lease = new Lease(execution.taskId(), "local-replay", "local-replay");
            Delivery context = new Delivery(runtime, lease, stored());
            Object result = null;
            Throwable failure = null;
            Object[] arguments = arguments(method, execution);
            context.bind();
            try {
                ReflectionUtils.makeAccessible(method);
                result = method.invoke(replayed, arguments);
            }
            catch (InvocationTargetException ex) {
                failure = ex.getTargetException();
            }
            catch (ReflectiveOperationException ex) {
                throw new IllegalStateException("cannot call " + method, ex);
            }
            finally {
                context.unbind();
            }
            context.parallel.awaitBranches();
            RuntimeException fatal = context.stop.fatal();
            if (fatal != null) {
                throw fatal;
            }
            if (context.stop.stopped()) {
                return new Outcome(Outcome.Status.END_OF_HISTORY, null, null, context.endOfHistory(),
                        context.stop.reason());
            }
            if (failure != null) {
                // an exception with no mismatch is the function's failure, not a divergence
                return new Outcome(Outcome.Status.FAILED, null, failure, -1, null);
            }
            fatal = context.checkHistoryConsumed();
            if (fatal != null) {
                throw fatal;
            }
            return new Outcome(Outcome.Status.COMPLETED, result, null, -1, null);
        }
        finally {
            runtime.close();
        }
    }

    private static boolean declares(Class<?> beanClass, Class<?> type) {
        return SkailBeanEnhancer.stepMethods(beanClass).stream()
            .flatMap((step) -> java.util.Arrays.stream(step.method().getExceptionTypes()))
            .anyMatch((declared) -> declared.isAssignableFrom(type) && declared != Throwable.class
                    && declared != Exception.class && declared != RuntimeException.class && declared != Error.class);
    }

    private Object[] arguments(Method method, SkailExecution execution) {
        java.lang.reflect.Type[] types = method.getGenericParameterTypes();
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            values[i] = this.json.convert(this.json.parse(execution.arguments()).get(i), types[i]);
        }
        return values;
    }

    private static Method functionOf(Class<?> type, String name) {
        for (StepMethod step : SkailBeanEnhancer.stepMethods(org.springframework.util.ClassUtils.getUserClass(type))) {
            if (step.function() && step.name().equals(name)) {
                return step.method();
            }
        }
        throw new IllegalArgumentException("The history is of function '" + name + "', which " + type.getName()
                + " does not declare");
    }

    /** A copy of the bean whose class is the generated subclass, so that its own calls to commands are replayed. */
    private static Object enhancedCopy(Object bean) {
        Class<?> userClass = org.springframework.util.ClassUtils.getUserClass(bean.getClass());
        Object copy = new SpringObjenesis().newInstance(SkailBeanEnhancer.enhance(userClass));
        // every instance field, final ones included (Spring's shallowCopyFieldState skips those)
        ReflectionUtils.doWithFields(userClass, (field) -> {
            ReflectionUtils.makeAccessible(field);
            field.set(copy, field.get(bean));
        }, (field) -> !java.lang.reflect.Modifier.isStatic(field.getModifiers()));
        return copy;
    }

    private Instant lastRecordedTime() {
        Instant last = this.history.execution().updatedAt();
        for (SkailStep step : this.history.steps()) {
            Instant at = (step.completedAt() != null) ? step.completedAt() : step.startedAt();
            if (at.isAfter(last)) {
                last = at;
            }
        }
        return last;
    }

    private StoredHistory stored() {
        SkailExecution execution = this.history.execution();
        ExecutionRow row = new ExecutionRow(execution.taskId(), execution.workload(), execution.version(),
                execution.function(), execution.arguments(), ExecutionStatus.RUNNING, null, null,
                execution.attempt(), 0, null, execution.createdAt().toEpochMilli(), execution.updatedAt().toEpochMilli(),
                execution.parentTaskId());
        List<StepRow> steps = new ArrayList<>();
        List<AttemptRow> attempts = new ArrayList<>();
        for (SkailStep step : this.history.steps()) {
            if (SkailStep.RETRYING.equals(step.status())) {
                continue; // attempts made, nothing recorded: a replay runs (here: stops at) that step
            }
            steps.add(new StepRow(execution.taskId(), step.position(), step.kind(), step.name(),
                    step.arguments(), step.status(), step.result(),
                    (step.error() != null) ? this.json.writeError(step.error()) : null, step.idempotencyKey(),
                    execution.attempt(), step.startedAt().toEpochMilli(),
                    (step.completedAt() != null) ? step.completedAt().toEpochMilli() : step.startedAt().toEpochMilli(),
                    step.childTaskId()));
        }
        return new StoredHistory(row, steps, attempts, List.of());
    }

    /**
     * What the replay came to.
     *
     * @param status how it ended
     * @param result the function's result, when it completed
     * @param failure the exception that left the function, when it failed
     * @param endOfHistory the position where the replay stopped, when it reached the end of the history
     * @param reason why it stopped, when it did not end
     */
    public record Outcome(Status status, @Nullable Object result, @Nullable Throwable failure, int endOfHistory,
            @Nullable String reason) {

        /** How a replay ended. */
        public enum Status {

            /** The function returned. */
            COMPLETED,

            /** An exception left the function. */
            FAILED,

            /** The function reached a step the history does not have (or still waits for). */
            END_OF_HISTORY
        }
    }

    /** The recorded history, read-only: writes of the replay go nowhere. */
    private static final class HistoryStore implements ExecutionStore {

        private final StoredHistory history;

        HistoryStore(StoredHistory history) {
            this.history = history;
        }

        @Override
        public void initialize() {
        }

        @Override
        public Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags) {
            return Optional.empty();
        }

        @Override
        public Optional<ExecutionRow> find(String taskId) {
            return Optional.empty();
        }

        @Override
        public Optional<StoredHistory> history(String taskId) {
            return Optional.of(this.history);
        }

        @Override
        public List<ExecutionRow> search(SkailQuery query, long offset, int limit) {
            return List.of();
        }

        @Override
        public Map<ExecutionStatus, Long> countByStatus(SkailQuery query) {
            return Map.of();
        }

        @Override
        public Map<String, List<Tag>> tags(java.util.Collection<String> taskIds) {
            return Map.of();
        }

        @Override
        public void tag(Lease lease, Tag tag, long now, long leaseUntil) {
        }

        @Override
        public List<Lease> claimDue(String workload, String version, String owner, int limit, long now,
                long leaseUntil, Set<String> exclude) {
            return List.of();
        }

        @Override
        public List<Lease> renew(List<Lease> leases, long now, long leaseUntil) {
            return List.of();
        }

        @Override
        public void recordStep(Lease lease, StepRow step, @Nullable AttemptRow attempt, long now, long leaseUntil) {
        }

        @Override
        public void recordAttempt(Lease lease, AttemptRow attempt, long now, long leaseUntil) {
        }

        @Override
        public void suspend(Lease lease, Suspend suspend, long now) {
        }

        @Override
        public void startChild(Lease lease, StepRow step, ExecutionRow child, List<Tag> childTags, long now,
                long leaseUntil) {
        }

        @Override
        public Optional<EventRow> takeEvent(Lease lease, String name, Function<EventRow, StepRow> step, long now,
                long leaseUntil) {
            return Optional.empty();
        }

        @Override
        public FireOutcome fire(String taskId, String name, @Nullable String payload, String eventKey, long now) {
            return FireOutcome.NOT_FOUND;
        }

        @Override
        public void scheduleFunctionRetry(Lease lease, AttemptRow attempt, Set<Integer> escaped, long nextRunAt,
                long now) {
        }

        @Override
        public void complete(Lease lease, @Nullable String resultJson, long now) {
        }

        @Override
        public void fail(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now) {
        }

        @Override
        public boolean resume(String taskId, long now) {
            return false;
        }

        @Override
        public void release(Lease lease, long now) {
        }

        @Override
        public Map<String, Long> counts(String workload, String version, long now) {
            return Map.of();
        }
    }
}
