package dev.skail.sample;

/** What the payment gateway decided. A refusal is a result, not an exception: it is definitive. */
public enum ResultadoCobranca {

    APROVADO, RECUSADO
}
