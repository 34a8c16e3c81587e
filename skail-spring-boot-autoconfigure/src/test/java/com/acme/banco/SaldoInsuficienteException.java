package com.acme.banco;

import java.math.BigDecimal;

/** A business exception with only a multi-argument constructor and fields, as an application would declare. */
public class SaldoInsuficienteException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String account;

    private final BigDecimal missing;

    public SaldoInsuficienteException(String account, BigDecimal missing) {
        super("saldo insuficiente na conta " + account + ": faltam " + missing);
        this.account = account;
        this.missing = missing;
    }

    public String getAccount() {
        return this.account;
    }

    public BigDecimal getMissing() {
        return this.missing;
    }
}
