package dev.skail;

import java.io.Serial;

/** Thrown to a caller waiting for the result of an execution that ended CANCELLED: there is no result. */
public class SkailExecutionCancelledException extends SkailException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String taskId;

    private final transient SkailExecution execution;

    public SkailExecutionCancelledException(SkailExecution execution) {
        super("Execution '" + execution.taskId() + "' (" + execution.function() + ") was cancelled");
        this.taskId = execution.taskId();
        this.execution = execution;
    }

    /** The execution's id. */
    public String taskId() {
        return this.taskId;
    }

    /** The execution as it ended. */
    public SkailExecution execution() {
        return this.execution;
    }
}
