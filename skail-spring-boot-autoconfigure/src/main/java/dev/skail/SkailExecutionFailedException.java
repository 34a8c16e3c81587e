package dev.skail;

import java.io.Serial;

/**
 * Thrown to a caller waiting for the result of an execution that ended {@link ExecutionStatus#FAILED}: the function
 * failed and its redeliveries are spent (or it failed for good, e.g. a divergence). It carries the recorded error,
 * the same the history, the HTTP API and the Monitor show.
 */
public class SkailExecutionFailedException extends SkailException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String taskId;

    private final transient SkailExecution execution;

    private final SkailError error;

    public SkailExecutionFailedException(SkailExecution execution, SkailError error) {
        super("Execution '" + execution.taskId() + "' (" + execution.function() + ") FAILED: " + error.type()
                + ((error.message() != null) ? ": " + error.message() : ""));
        this.taskId = execution.taskId();
        this.execution = execution;
        this.error = error;
    }

    /** The execution's id. */
    public String taskId() {
        return this.taskId;
    }

    /** The execution as it ended. */
    public SkailExecution execution() {
        return this.execution;
    }

    /** The recorded error: the exception's type, message, stack trace and causes. */
    public SkailError error() {
        return this.error;
    }
}
