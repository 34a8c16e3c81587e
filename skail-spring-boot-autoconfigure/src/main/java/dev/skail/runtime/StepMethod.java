package dev.skail.runtime;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import org.springframework.util.ConcurrentReferenceHashMap;

import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import org.jspecify.annotations.Nullable;

/**
 * A method annotated with {@link SkailFunction} or {@link SkailCommand}, as the runtime sees it.
 *
 * @param method the annotated method, as declared
 * @param function whether it is a function (otherwise a command)
 * @param name its name: the annotation's, or the method's
 * @param retryCount how many redeliveries a failure gets
 * @param noRetryFor a command's exceptions known to be definitive
 * @param backoff a command's own backoff settings
 */
record StepMethod(Method method, boolean function, String name, int retryCount,
        List<Class<? extends Throwable>> noRetryFor, CommandBackoff backoff) {

    // weak keys: a restarted application's classes (devtools) are not kept reachable
    private static final Map<Method, StepMethod> cache = new ConcurrentReferenceHashMap<>();

    private static final StepMethod NONE = new StepMethod(Object.class.getMethods()[0], false, "", 0, List.of(),
            CommandBackoff.NONE);

    /** The step method a method declares, or {@code null} when it carries neither annotation. */
    static @Nullable StepMethod of(Method method) {
        StepMethod step = cache.computeIfAbsent(method, StepMethod::read);
        return (step != NONE) ? step : null;
    }

    private static StepMethod read(Method method) {
        SkailFunction function = method.getAnnotation(SkailFunction.class);
        if (function != null) {
            return new StepMethod(method, true, nameOf(function.name(), method), function.retryCount(), List.of(),
                    CommandBackoff.NONE);
        }
        SkailCommand command = method.getAnnotation(SkailCommand.class);
        if (command != null) {
            return new StepMethod(method, false, nameOf(command.name(), method), command.retryCount(),
                    List.of(command.noRetryFor()), new CommandBackoff(command.backoffInitial(),
                            command.backoffMultiplier(), command.backoffMax(), command.backoffJitter()));
        }
        return NONE;
    }

    private static String nameOf(String declared, Method method) {
        return declared.isBlank() ? method.getName() : declared;
    }

    /** Whether this exception is one the command declares definitive. */
    public boolean isDefinitive(Throwable failure) {
        return this.noRetryFor.stream().anyMatch((type) -> type.isInstance(failure));
    }

    /** {@code Class.method} for messages. */
    public String describe() {
        return this.method.getDeclaringClass().getName() + "." + this.method.getName();
    }
}
