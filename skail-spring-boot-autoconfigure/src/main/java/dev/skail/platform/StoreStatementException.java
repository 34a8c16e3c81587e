package dev.skail.platform;

/**
 * The store refused a statement (a constraint, a value too long), or a write conflicts with what is recorded
 * already (a different step at the same position): not a transport failure, so retrying it would only fail again.
 * The execution it concerns is failed with this cause.
 */
public class StoreStatementException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreStatementException(String message, Throwable cause) {
        super(message, cause);
    }

    /** A write that conflicts with what the store holds already. */
    public StoreStatementException(String message) {
        super(message);
    }
}
