package dev.skail.platform;

/** The store could not be reached, after the runtime's own retries. Never counted as an attempt of a step. */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
