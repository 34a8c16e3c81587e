package dev.skail.runtime;

import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailError;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailPage;
import dev.skail.SkailRecordedException;
import dev.skail.SkailScheduleInfo;
import dev.skail.SkailStep;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * The runtime hints of skail itself, whatever the application's functions (registered in
 * {@code META-INF/spring/aot.factories}; those of the application's functions and commands come from
 * {@link SkailBeanRegistrationAotProcessor}): the Monitor's static files, binding on the types skail records and
 * serves as JSON (executions, histories, steps, attempts, recorded exceptions, schedules, the HTTP API's pages), and
 * Java serialization of what an exception's recorded form holds besides the exception's own classes.
 */
public final class SkailRuntimeHints implements RuntimeHintsRegistrar {

    /** The Monitor's files, served by {@code SkailMonitorController} from the class path. */
    static final String MONITOR_RESOURCES = "dev/skail/web/monitor/*";

    /** The pages of the HTTP API (web types: present when the web module is). */
    private static final List<String> WEB_TYPES = List.of("dev.skail.web.SkailApiController$ExecutionPage",
            "dev.skail.web.SkailScheduleController$SchedulePage");

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(MONITOR_RESOURCES);
        ReflectionHints reflection = hints.reflection();
        BindingReflectionHintsRegistrar binding = new BindingReflectionHintsRegistrar();
        binding.registerReflectionHints(reflection, SkailError.class, SkailExecution.class, SkailHistory.class,
                SkailStep.class, SkailAttempt.class, SkailPage.class, SkailScheduleInfo.class, ExecutionStatus.class);
        for (String name : WEB_TYPES) {
            if (ClassUtils.isPresent(name, classLoader)) {
                binding.registerReflectionHints(reflection, ClassUtils.resolveClassName(name, classLoader));
            }
        }
        // a recorded exception: its classes (registered per declaring function or command), its stack trace, its
        // suppressed exceptions; a Charset written by name; what a replay rebuilds when a class is not admitted
        for (Class<?> type : List.of(Throwable.class, Exception.class, RuntimeException.class, Error.class,
                StackTraceElement.class, StackTraceElement[].class, Throwable[].class, java.util.ArrayList.class,
                java.util.Collections.emptyList().getClass(),
                java.util.Collections.unmodifiableList(new java.util.ArrayList<>()).getClass(),
                ExceptionCodec.CharsetName.class, SkailRecordedException.class)) {
            reflection.registerJavaSerialization(type);
        }
        reflection.registerType(SkailRecordedException.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS,
                MemberCategory.ACCESS_DECLARED_FIELDS);
        // the embedded store's H2 file system: H2 creates one per path through its public constructor
        reflection.registerType(TypeReference.of("dev.skail.platform.jdbc.H2PreallocatedFilePath"),
                MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
    }
}
