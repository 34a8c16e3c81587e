package dev.skail.runtime;

/** A checked exception of a command, as a payment gateway client would throw. */
public class GatewayException extends Exception {

    private static final long serialVersionUID = 1L;

    public GatewayException(String message) {
        super(message);
    }
}
