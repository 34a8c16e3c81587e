package dev.skail.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.util.UUID;

import dev.skail.SkailClient;
import dev.skail.SkailExecution;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The application's own API: it starts the order flow with {@link SkailClient}, checked by the compiler. */
@RestController
public class PedidosController {

    private final SkailClient skail;

    public PedidosController(SkailClient skail) {
        this.skail = skail;
    }

    @PostMapping("/pedidos")
    ResponseEntity<SkailExecution> criar(@RequestBody NovoPedido pedido) {
        UUID pedidoId = UUID.randomUUID();
        SkailExecution execution = this.skail.trigger("pedido-" + pedidoId, Pedidos.class,
                (pedidos) -> pedidos.processarPedido(pedidoId, pedido.valor()));
        return ResponseEntity.accepted().location(URI.create("/pedidos/" + execution.taskId())).body(execution);
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
