package dev.skail.runtime;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import dev.skail.ExecutionStatus;
import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailHandle;
import dev.skail.SkailHistory;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailPage;
import dev.skail.SkailQuery;
import org.aopalliance.intercept.MethodInterceptor;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.util.ClassUtils;

/** The {@link SkailClient} of the embedded platform: it goes straight to the runtime (which wakes the worker). */
public class DefaultSkailClient implements SkailClient {

    private final SkailRuntime runtime;

    public DefaultSkailClient(SkailRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public <R> SkailHandle<R> trigger(String function, String taskId, Object... arguments) {
        RuntimeSettings settings = this.runtime.settings();
        SkailExecution execution = this.runtime.trigger(settings.workload(), settings.version(), function, taskId,
                this.runtime.encode(function, arguments)).execution();
        return new DefaultSkailHandle<>(this.runtime, execution, resultType(execution));
    }

    @Override
    public <R> SkailHandle<R> handle(String taskId, Class<R> resultType) {
        return new DefaultSkailHandle<>(this.runtime, existing(taskId), resultType);
    }

    @Override
    public SkailHandle<Object> handle(String taskId) {
        SkailExecution execution = existing(taskId);
        return new DefaultSkailHandle<>(this.runtime, execution, resultType(execution));
    }

    private SkailExecution existing(String taskId) {
        return this.runtime.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
    }

    /** The declared return type of the execution's function, when this runtime serves it; else {@code Object}. */
    private Type resultType(SkailExecution execution) {
        RuntimeSettings settings = this.runtime.settings();
        if (!settings.workload().equals(execution.workload()) || !settings.version().equals(execution.version())) {
            return Object.class;
        }
        return this.runtime.resultType(execution.function()).orElse(Object.class);
    }

    @Override
    public <T, R> SkailHandle<R> trigger(String taskId, Class<T> beanType, Consumer<T> call) {
        AtomicReference<Invocation> recorded = new AtomicReference<>();
        ProxyFactory factory = new ProxyFactory();
        factory.setTargetClass(ClassUtils.getUserClass(beanType));
        factory.setProxyTargetClass(true);
        factory.addAdvice((MethodInterceptor) (invocation) -> {
            recorded.compareAndSet(null, new Invocation(invocation.getMethod(), invocation.getArguments()));
            return defaultValue(invocation.getMethod().getReturnType());
        });
        @SuppressWarnings("unchecked")
        T stand = (T) factory.getProxy(beanType.getClassLoader());
        call.accept(stand);
        Invocation invocation = recorded.get();
        StepMethod step = (invocation != null) ? StepMethod.of(invocation.method()) : null;
        if (step == null || !step.function()) {
            throw new SkailInvalidRequestException("The call given to trigger must call one @SkailFunction method of "
                    + beanType.getName() + (invocation != null ? ", not " + invocation.method().getName() : ""));
        }
        return trigger(step.name(), taskId, invocation.arguments());
    }

    @Override
    public void fire(String taskId, String event, @Nullable Object payload) {
        RuntimeSettings settings = this.runtime.settings();
        this.runtime.fire(settings.workload(), settings.version(), taskId, event,
                (payload != null) ? this.runtime.json().write(payload) : null);
    }

    @Override
    public void fire(String taskId, String event, @Nullable Object payload, String idempotencyKey) {
        RuntimeSettings settings = this.runtime.settings();
        this.runtime.fire(settings.workload(), settings.version(), taskId, event,
                (payload != null) ? this.runtime.json().write(payload) : null, idempotencyKey);
    }

    @Override
    public SkailExecution resume(String taskId) {
        return this.runtime.resume(taskId);
    }

    @Override
    public SkailExecution cancel(String taskId) {
        return this.runtime.cancel(taskId);
    }

    @Override
    public Optional<SkailExecution> find(String taskId) {
        return this.runtime.find(taskId);
    }

    @Override
    public SkailHistory history(String taskId) {
        return this.runtime.history(taskId);
    }

    @Override
    public SkailPage search(SkailQuery query) {
        return this.runtime.search(query);
    }

    @Override
    public Map<ExecutionStatus, Long> count(SkailQuery query) {
        return this.runtime.count(query);
    }

    @Override
    public java.util.List<dev.skail.SkailScheduleInfo> schedules() {
        return this.runtime.schedules();
    }

    private static @Nullable Object defaultValue(Class<?> type) {
        if (!type.isPrimitive() || type == void.class) {
            return null;
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        return switch (type.getName()) {
            case "long" -> 0L;
            case "float" -> 0f;
            case "double" -> 0d;
            case "byte" -> (byte) 0;
            case "short" -> (short) 0;
            default -> 0;
        };
    }

    private record Invocation(Method method, Object[] arguments) {
    }
}
