package dev.skail.sample;

import java.math.BigDecimal;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.stereotype.Component;

/**
 * A fake payment gateway: it fails the first {@code sample.gateway-failures} calls of each order, refuses charges
 * above 1,000.00 and never answers for the amount 666.00 (to show the compensation).
 */
@Component
public class GatewayDePagamento {

    private static final BigDecimal LIMITE = new BigDecimal("1000.00");

    private static final BigDecimal FORA_DO_AR = new BigDecimal("666.00");

    private final SampleProperties properties;

    private final Map<UUID, AtomicInteger> chamadas = new ConcurrentHashMap<>();

    public GatewayDePagamento(SampleProperties properties) {
        this.properties = properties;
    }

    public ResultadoCobranca cobrar(UUID pedidoId, BigDecimal valor, String idempotencyKey) throws GatewayException {
        Latency.pause(this.properties.latency());
        int chamada = this.chamadas.computeIfAbsent(pedidoId, (id) -> new AtomicInteger()).incrementAndGet();
        if (valor.compareTo(FORA_DO_AR) == 0 || chamada <= this.properties.gatewayFailures()) {
            throw new GatewayException("gateway timed out on call " + chamada + " for order " + pedidoId);
        }
        return (valor.compareTo(LIMITE) > 0) ? ResultadoCobranca.RECUSADO : ResultadoCobranca.APROVADO;
    }
}
