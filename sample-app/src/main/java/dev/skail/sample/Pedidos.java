package dev.skail.sample;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.UUID;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;
import dev.skail.SkailSchedule;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Service;

/**
 * The order flow of skail's documentation ("Como funciona", "Falhas, retries e idempotência"): reserve stock, wait
 * (24 hours by default, holding no thread), charge the card, compensate when the gateway stays down, treat a refusal
 * as a result, confirm.
 */
@Service
public class Pedidos {

    private static final Log logger = LogFactory.getLog(Pedidos.class);

    private final GatewayDePagamento gateway;

    private final EffectJournal journal;

    private final SampleProperties properties;

    public Pedidos(GatewayDePagamento gateway, EffectJournal journal, SampleProperties properties) {
        this.gateway = gateway;
        this.journal = journal;
        this.properties = properties;
    }

    @SkailFunction
    public String processarPedido(UUID pedidoId, BigDecimal valor) {
        reservarEstoque(pedidoId);
        Skail.delay(this.properties.prazoConfirmacao()); // hibernates: no thread held, survives restarts
        ResultadoCobranca resultado;
        try {
            resultado = cobrarCartao(pedidoId, valor); // the exception arrives only after 9 attempts
        }
        catch (GatewayException ex) {
            liberarEstoque(pedidoId); // compensation
            marcarPedidoComoPendente(pedidoId);
            return "PENDENTE";
        }
        if (resultado == ResultadoCobranca.RECUSADO) { // a business failure is a result, not an exception
            liberarEstoque(pedidoId);
            return "RECUSADO";
        }
        confirmarPedido(pedidoId);
        return "CONFIRMADO";
    }

    /**
     * Waits until the carrier reports that a dispatched order was delivered: the event {@code entregue}, fired with
     * who received it ({@code POST /api/v1/fire/vendas/v1.0.0/{taskId}/entregue}, body {@code "Maria"}), then records
     * the delivery. An event fired before the function reaches the wait is kept for it (S7).
     */
    @SkailFunction
    public String confirmarEntrega(UUID pedidoId) {
        despacharPedido(pedidoId);
        String recebedor = Skail.waitForEvent("entregue", String.class); // hibernates until the carrier reports
        registrarEntrega(pedidoId, recebedor);
        return "ENTREGUE a " + recebedor;
    }

    /**
     * The daily orders report: a schedule starts it every day at 06:00 in São Paulo ({@code sample.relatorio-cron},
     * {@code sample.relatorio-zone}; the cron {@code -} disables it), one execution per day with the id
     * {@code relatorioDePedidos:2025-03-01T09:00:00Z}, once however many instances run and however often they restart.
     */
    @SkailFunction
    @SkailSchedule(cron = "${sample.relatorio-cron:0 0 6 * * *}", zone = "${sample.relatorio-zone:America/Sao_Paulo}")
    public String relatorioDePedidos() {
        LocalDate dia = LocalDate.ofInstant(Skail.now(), ZoneId.of("America/Sao_Paulo")); // recorded: the same on replay
        return enviarRelatorioDePedidos(dia);
    }

    @SkailCommand
    public String enviarRelatorioDePedidos(LocalDate dia) {
        Latency.pause(this.properties.latency());
        String relatorio = "relatório de pedidos de " + dia;
        logger.info(relatorio + " enviado");
        return relatorio;
    }

    @SkailCommand
    public String reservarEstoque(UUID pedidoId) {
        return effect("reservarEstoque", "reserva-" + pedidoId);
    }

    /**
     * Charges the card, as a payment API's guide on retries asks (seed 003): the charge carries a reference made
     * before the first attempt (the step's idempotency key) as its {@code externalReference}; an attempt after an
     * inconclusive one (a timeout) first looks the charge up by that reference and uses it, instead of creating a
     * second one.
     */
    @SkailCommand(retryCount = 8)
    public ResultadoCobranca cobrarCartao(UUID pedidoId, BigDecimal valor) throws GatewayException {
        SkailContext context = SkailContext.current();
        String externalReference = context.idempotencyKey();
        Cobranca cobranca = null;
        if (context.attempt() > 1) {
            cobranca = this.gateway.buscarPorReferencia(externalReference).orElse(null);
            if (cobranca != null) {
                logger.info("cobrarCartao " + pedidoId + ": charge " + cobranca.id() + " of an earlier attempt found");
            }
        }
        if (cobranca == null) {
            cobranca = this.gateway.criarCobranca(pedidoId, valor, externalReference);
        }
        this.journal.record(context.taskId(), "cobrarCartao");
        return "APPROVED".equals(cobranca.status()) ? ResultadoCobranca.APROVADO : ResultadoCobranca.RECUSADO;
    }

    @SkailCommand
    public void liberarEstoque(UUID pedidoId) {
        effect("liberarEstoque", null);
    }

    @SkailCommand
    public void marcarPedidoComoPendente(UUID pedidoId) {
        effect("marcarPedidoComoPendente", null);
    }

    @SkailCommand
    public void confirmarPedido(UUID pedidoId) {
        effect("confirmarPedido", null);
    }

    @SkailCommand
    public void despacharPedido(UUID pedidoId) {
        effect("despacharPedido", null);
    }

    @SkailCommand
    public void registrarEntrega(UUID pedidoId, String recebedor) {
        effect("registrarEntrega", null);
    }

    private String effect(String name, String value) {
        Latency.pause(this.properties.latency());
        this.journal.record(SkailContext.current().taskId(), name);
        return value;
    }
}
