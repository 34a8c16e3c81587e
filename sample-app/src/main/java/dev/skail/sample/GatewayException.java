package dev.skail.sample;

/** The payment gateway did not answer conclusively (timeout, 5xx). Worth retrying. */
public class GatewayException extends Exception {

    private static final long serialVersionUID = 1L;

    public GatewayException(String message) {
        super(message);
    }
}
