package dev.skail;

/** A request conflicts with what exists, e.g. a trigger that repeats an id with other arguments. */
public class SkailConflictException extends SkailException {

    private static final long serialVersionUID = 1L;

    public SkailConflictException(String message) {
        super(message);
    }

    public SkailConflictException(String message, Throwable cause) {
        super(message, cause);
    }
}
