package dev.skail;

/** A request is malformed: bad JSON, wrong arity or types, an invalid id. */
public class SkailInvalidRequestException extends SkailException {

    private static final long serialVersionUID = 1L;

    public SkailInvalidRequestException(String message) {
        super(message);
    }

    public SkailInvalidRequestException(String message, Throwable cause) {
        super(message, cause);
    }
}
