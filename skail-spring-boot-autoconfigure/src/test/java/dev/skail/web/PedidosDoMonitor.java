package dev.skail.web;

import java.math.BigDecimal;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;
import dev.skail.SkailTag;
import dev.skail.search.Pedido;

/**
 * The orders an operator looks after in the Monitor's search tests: each execution is tagged by its order id
 * ({@link SkailTag}) at the trigger and by its customer ({@link SkailContext#tag}) as soon as it runs.
 */
public class PedidosDoMonitor {

    /** Whether the card gateway is down: {@link #cobrarPedido} fails for good while it is. */
    private final AtomicBoolean gatewayFora = new AtomicBoolean();

    /** Reserves the stock and waits for the payment ({@code pagamento}): WAITING until it is fired or cancelled. */
    @SkailFunction
    public String processarPedido(@SkailTag("pedido") UUID pedidoId, Pedido pedido) {
        SkailContext.current().tag("cliente", pedido.cliente());
        String reserva = reservarEstoque(pedido);
        String pagamento = Skail.waitForEvent("pagamento", String.class);
        return reserva + ", pago por " + pagamento;
    }

    @SkailCommand
    public String reservarEstoque(Pedido pedido) {
        return "reservado " + pedido.itens().size();
    }

    /** Charges the order's card at once: FAILED (no retries) while the gateway is down, COMPLETED otherwise. */
    @SkailFunction(retryCount = 0)
    public String cobrarPedido(@SkailTag("pedido") UUID pedidoId, Pedido pedido) {
        SkailContext.current().tag("cliente", pedido.cliente());
        return cobrarCartao(pedido.valor());
    }

    @SkailCommand(retryCount = 0)
    public String cobrarCartao(BigDecimal valor) {
        if (this.gatewayFora.get()) {
            throw new IllegalStateException("gateway de pagamento fora do ar");
        }
        return "APROVADO " + valor.toPlainString();
    }

    void gatewayFora(boolean fora) {
        this.gatewayFora.set(fora);
    }
}
