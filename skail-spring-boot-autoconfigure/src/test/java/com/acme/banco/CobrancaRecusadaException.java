package com.acme.banco;

import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;

/**
 * An exception with a record field, a list of records, an enum and a free-form {@code Object} detail (where a
 * careless or hostile value can end up).
 */
public class CobrancaRecusadaException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Cobranca cobranca;

    private final List<Cobranca> anteriores;

    private final Motivo motivo;

    private final Object detalhe;

    public CobrancaRecusadaException(Cobranca cobranca, List<Cobranca> anteriores, Motivo motivo, Object detalhe) {
        super("cobrança " + cobranca.id() + " recusada: " + motivo);
        this.cobranca = cobranca;
        this.anteriores = anteriores;
        this.motivo = motivo;
        this.detalhe = detalhe;
    }

    public Cobranca getCobranca() {
        return this.cobranca;
    }

    public List<Cobranca> getAnteriores() {
        return this.anteriores;
    }

    public Motivo getMotivo() {
        return this.motivo;
    }

    public Object getDetalhe() {
        return this.detalhe;
    }

    /** A charge. */
    public record Cobranca(String id, BigDecimal valor, Instant em) implements Serializable {
    }

    /** Why a charge was refused. */
    public enum Motivo {
        FRAUDE, LIMITE_EXCEDIDO
    }
}
