package dev.skail.platform;

/**
 * The store refused a statement (a constraint, a value too long): not a transport failure, so retrying it would
 * only fail again. The execution it concerns is failed with this cause.
 */
public class StoreStatementException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreStatementException(String message, Throwable cause) {
        super(message, cause);
    }
}
