package dev.skail;

import java.io.Serial;
import java.time.Duration;

/**
 * Thrown by {@link SkailHandle#result(Duration)} when the execution has not ended within the timeout. The execution
 * goes on: wait again, or answer its current state ({@link #execution()}).
 */
public class SkailTimeoutException extends SkailException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient SkailExecution execution;

    private final Duration timeout;

    public SkailTimeoutException(SkailExecution execution, Duration timeout) {
        super("Execution '" + execution.taskId() + "' has not ended within " + timeout + " (it is "
                + execution.status() + ")");
        this.execution = execution;
        this.timeout = timeout;
    }

    /** The execution as it stood when the wait ran out. */
    public SkailExecution execution() {
        return this.execution;
    }

    /** How long the caller waited. */
    public Duration timeout() {
        return this.timeout;
    }
}
