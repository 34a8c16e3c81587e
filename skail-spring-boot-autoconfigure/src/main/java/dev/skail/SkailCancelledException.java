package dev.skail;

/**
 * Thrown into a function at the step where it stands when its execution is cancelled
 * ({@link SkailClient#cancel(String)}, {@code POST /api/v1/executions/{taskId}/cancel}, the Monitor's button): at
 * once when the execution is waiting (a delay, an event, a child) or not started; at its next step boundary when it
 * is running. The point of cancellation is recorded in the history as a step of kind {@code CANCEL}: a replay
 * (after a restart or a crash during the compensation) throws it again at the same place.
 * <p>
 * The function may catch it to compensate with commands, which run and are recorded as usual; whether it then
 * returns or throws, the execution ends {@link ExecutionStatus#CANCELLED} (it is neither retried nor FAILED). A
 * parent waiting for a cancelled child gets this exception at the call.
 */
public class SkailCancelledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String taskId;

    public SkailCancelledException(String taskId, String message) {
        super(message);
        this.taskId = taskId;
    }

    /** The execution that was cancelled. */
    public String taskId() {
        return this.taskId;
    }
}
