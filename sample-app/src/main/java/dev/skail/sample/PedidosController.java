package dev.skail.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;

import dev.skail.SkailClient;
import dev.skail.SkailExecution;
import dev.skail.SkailHandle;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The application's own API: it starts the order flow with {@link SkailClient}, checked by the compiler. */
@RestController
public class PedidosController {

    private final SkailClient skail;

    public PedidosController(SkailClient skail) {
        this.skail = skail;
    }

    /** How long a request waits (unless it says {@code ?espera=500ms}) for the order's outcome before it answers 202 and lets the client come back. */
    static final Duration ESPERA = Duration.ofSeconds(2);

    /**
     * Starts the order flow and answers its outcome when it ends within {@link #ESPERA} (200 with the execution and
     * its result: {@code CONFIRMADO}, {@code RECUSADO}, {@code PENDENTE}), else 202 with {@code Location}: the order
     * goes on, and {@code GET /pedidos/{taskId}} (or {@code GET /api/v1/executions/{taskId}?wait=10s}) tells its end.
     */
    @PostMapping("/pedidos")
    ResponseEntity<SkailExecution> criar(@RequestBody NovoPedido pedido,
            @RequestParam(name = "espera", required = false) @Nullable String espera) {
        Duration wait = (espera != null) ? DurationStyle.detectAndParse(espera) : ESPERA;
        UUID pedidoId = UUID.randomUUID();
        SkailHandle<String> handle = this.skail.trigger("pedido-" + pedidoId, Pedidos.class,
                (pedidos) -> pedidos.processarPedido(pedidoId, pedido.valor()));
        SkailExecution execution = handle.await(wait); // no thread polls: the end of the execution is signalled
        if (execution.status().isTerminal()) {
            return ResponseEntity.ok(execution);
        }
        return ResponseEntity.accepted().location(URI.create("/pedidos/" + handle.taskId())).body(execution);
    }

    @GetMapping("/pedidos/{taskId}")
    ResponseEntity<SkailExecution> consultar(@PathVariable String taskId) {
        return ResponseEntity.of(this.skail.find(taskId));
    }

    /**
     * A new order.
     *
     * @param valor the amount to charge
     */
    public record NovoPedido(BigDecimal valor) {
    }
}
