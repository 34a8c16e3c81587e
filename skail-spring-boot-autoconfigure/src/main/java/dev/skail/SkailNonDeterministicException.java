package dev.skail;

/**
 * Raised when the replay of a function reaches a step that differs from the step recorded at the same
 * position of the history (another kind or another method), or when the function ends while the history
 * still holds steps it no longer reaches. The execution fails with this exception as its cause, whatever
 * the function's code does with it: the code and the history tell different stories.
 */
public class SkailNonDeterministicException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String taskId;

    private final int position;

    public SkailNonDeterministicException(String taskId, int position, String message) {
        super(message);
        this.taskId = taskId;
        this.position = position;
    }

    /** The execution whose replay diverged. */
    public String taskId() {
        return this.taskId;
    }

    /** Position in the history (0 is the first step) where the divergence was found. */
    public int position() {
        return this.position;
    }
}
