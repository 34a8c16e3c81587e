package com.acme.banco;

/** An exception whose only constructor builds its own message from an account. */
public class ContaBloqueadaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String account;

    public ContaBloqueadaException(String account) {
        super("conta " + account + " bloqueada");
        this.account = account;
    }

    public String getAccount() {
        return this.account;
    }
}
