package dev.skail.sample;

import java.util.UUID;

import dev.skail.Skail;
import dev.skail.SkailCancelledException;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;

import org.springframework.stereotype.Service;

/**
 * A pickup that can be cancelled while it waits (for {@link CancelCrashTests}): books a vehicle, waits for the event
 * {@code coletado}; a cancellation refunds the freight, frees the vehicle and tells the customer, then rethrows.
 * Each effect takes {@code sample.latency} and is written to the journal.
 */
@Service
public class Coletas {

    private final EffectJournal journal;

    private final SampleProperties properties;

    public Coletas(EffectJournal journal, SampleProperties properties) {
        this.journal = journal;
        this.properties = properties;
    }

    @SkailFunction
    public String aguardarColeta(UUID pedidoId) {
        reservarVeiculo(pedidoId);
        try {
            return "COLETADO por " + Skail.waitForEvent("coletado", String.class);
        }
        catch (SkailCancelledException ex) {
            estornarFrete(pedidoId);
            liberarVeiculo(pedidoId);
            avisarCliente(pedidoId);
            throw ex;
        }
    }

    @SkailCommand
    public void reservarVeiculo(UUID pedidoId) {
        effect("reservarVeiculo");
    }

    @SkailCommand
    public void estornarFrete(UUID pedidoId) {
        effect("estornarFrete");
    }

    @SkailCommand
    public void liberarVeiculo(UUID pedidoId) {
        effect("liberarVeiculo");
    }

    @SkailCommand
    public void avisarCliente(UUID pedidoId) {
        effect("avisarCliente");
    }

    private void effect(String name) {
        Latency.pause(this.properties.latency());
        this.journal.record(SkailContext.current().taskId(), name);
    }
}
