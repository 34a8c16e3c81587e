package com.acme.externo;

/** An exception of a package the application does not allow. */
public class FraudeExternaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public FraudeExternaException(String message) {
        super(message);
    }
}
