package dev.skail;

/** Base class of the errors the skail client and HTTP API report to the caller. */
public class SkailException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SkailException(String message) {
        super(message);
    }

    public SkailException(String message, Throwable cause) {
        super(message, cause);
    }
}
