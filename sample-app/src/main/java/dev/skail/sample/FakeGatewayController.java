package dev.skail.sample;

import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A fake payment gateway built into the sample, so that it runs alone: it fails the first
 * {@code sample.gateway-failures} calls of each order with 503, refuses charges above 1,000.00 and never answers
 * 666.00 (to show the compensation). Like the real one, it does not deduplicate: the client looks a charge up by
 * its {@code externalReference} before creating it again.
 */
@RestController
@RequestMapping("/fake-gateway/charges")
public class FakeGatewayController {

    private static final BigDecimal LIMITE = new BigDecimal("1000.00");

    private static final BigDecimal FORA_DO_AR = new BigDecimal("666.00");

    private final SampleProperties properties;

    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    private final List<Cobranca> charges = new CopyOnWriteArrayList<>();

    public FakeGatewayController(SampleProperties properties) {
        this.properties = properties;
    }

    @PostMapping
    ResponseEntity<Cobranca> create(@RequestBody NewCharge charge) {
        Latency.pause(this.properties.latency());
        int call = this.calls.computeIfAbsent(charge.pedidoId(), (id) -> new AtomicInteger()).incrementAndGet();
        if (charge.valor().compareTo(FORA_DO_AR) == 0 || call <= this.properties.gatewayFailures()) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).build();
        }
        Cobranca created = new Cobranca("ch_" + UUID.randomUUID(), charge.externalReference(),
                (charge.valor().compareTo(LIMITE) > 0) ? "REFUSED" : "APPROVED");
        this.charges.add(created);
        return ResponseEntity.status(HttpStatus.CREATED).body(created);
    }

    @GetMapping
    GatewayDePagamento.Charges find(@RequestParam String externalReference) {
        return new GatewayDePagamento.Charges(
                this.charges.stream().filter((c) -> c.externalReference().equals(externalReference)).toList());
    }

    /**
     * A charge to create.
     *
     * @param pedidoId the order
     * @param valor the amount
     * @param externalReference the client's reference of the charge
     */
    record NewCharge(String pedidoId, BigDecimal valor, String externalReference) {
    }
}
