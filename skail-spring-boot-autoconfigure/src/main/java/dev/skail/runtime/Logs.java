package dev.skail.runtime;

import org.slf4j.MDC;

import org.springframework.util.ClassUtils;

/**
 * The execution in the logging context (SLF4J's MDC, when it is on the class path): {@code skail.taskId} and
 * {@code skail.function} during a delivery, {@code skail.command} while a command runs.
 */
final class Logs {

    static final String TASK_ID = "skail.taskId";

    static final String FUNCTION = "skail.function";

    static final String COMMAND = "skail.command";

    private static final boolean MDC_PRESENT = ClassUtils.isPresent("org.slf4j.MDC", Logs.class.getClassLoader());

    private Logs() {
    }

    static void delivery(String taskId, String function) {
        if (MDC_PRESENT) {
            MDC.put(TASK_ID, taskId);
            MDC.put(FUNCTION, function);
        }
    }

    static void command(String command) {
        if (MDC_PRESENT) {
            MDC.put(COMMAND, command);
        }
    }

    static void commandEnded() {
        if (MDC_PRESENT) {
            MDC.remove(COMMAND);
        }
    }

    static void clear() {
        if (MDC_PRESENT) {
            MDC.remove(TASK_ID);
            MDC.remove(FUNCTION);
            MDC.remove(COMMAND);
        }
    }
}
