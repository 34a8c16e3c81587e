package dev.skail.search;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;
import dev.skail.SkailTag;

/**
 * The order domain of the search tests: functions tagged by their parameters ({@link SkailTag}) and by what they learn
 * as they run ({@link SkailContext#tag}).
 */
public class PedidosBuscaveis {

    /** How many times each execution's function code ran (first runs and replays). */
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    /** Whether the card gateway is down: {@link #cobrarLote} fails while it is. */
    private final AtomicBoolean gatewayFora = new AtomicBoolean();

    /**
     * Tagged by its order id and channel at the trigger; by its customer and total as it runs; by its invoice's
     * number once issued. It waits for the payment (a replay follows), and bills through a child execution.
     */
    @SkailFunction
    public String processarPedido(@SkailTag("pedido") UUID pedidoId, @SkailTag("canal") Canal canal, Pedido pedido) {
        ran();
        SkailContext.current().tag("cliente", pedido.cliente());
        SkailContext.current().tag("valor", pedido.valor());
        reservarEstoque(pedido);
        String pagamento = Skail.waitForEvent("pagamento", String.class);
        String nota = faturar(pedidoId, pedido.valor());
        SkailContext.current().tag("nota", nota);
        // tagged again on every replay: kept once
        SkailContext.current().tag("cliente", pedido.cliente());
        return pagamento + " " + nota;
    }

    @SkailCommand
    public String reservarEstoque(Pedido pedido) {
        return "reservado " + pedido.itens().size();
    }

    /** A child execution, tagged by the same order id as its parent. */
    @SkailFunction
    public String faturar(@SkailTag("pedido") UUID pedidoId, @SkailTag("valor") BigDecimal valor) {
        return emitirNota(pedidoId);
    }

    @SkailCommand
    public String emitirNota(UUID pedidoId) {
        return "NF-" + pedidoId.toString().substring(0, 8);
    }

    /** Waits for an approval that does not come unless fired: it stays WAITING, for the bulk cancel. */
    @SkailFunction
    public String aguardarAprovacao(@SkailTag("lote") String lote, @SkailTag("sequencia") int sequencia) {
        return Skail.waitForEvent("aprovacao", String.class);
    }

    /** Completes at once. */
    @SkailFunction
    public String registrar(@SkailTag("lote") String lote, @SkailTag("sequencia") long sequencia) {
        return lote + "/" + sequencia;
    }

    /** Fails for good while the gateway is down (no retries): FAILED, for the bulk resume. */
    @SkailFunction(retryCount = 0)
    public String cobrarLote(@SkailTag("lote") String lote) {
        return cobrarCartao(lote);
    }

    @SkailCommand(retryCount = 0)
    public String cobrarCartao(String lote) {
        if (this.gatewayFora.get()) {
            throw new IllegalStateException("gateway de pagamento fora do ar");
        }
        return "APROVADO";
    }

    /** The messages of the tags the context refuses. */
    @SkailFunction
    public List<String> tagsInvalidas(String lote) {
        List<String> refused = new ArrayList<>();
        for (Object[] tag : new Object[][] { { " ", "x" }, { "cliente", " " }, { "chave com espaço", "x" },
                { "cliente", "x".repeat(201) }, { "k".repeat(65), "x" }, { "pedido", new Pedido(null, "c", null,
                        null, List.of()) }, { "nota", "Pedido \uD83D" } }) {
            try {
                SkailContext.current().tag((String) tag[0], tag[1]);
                refused.add("accepted " + tag[0]);
            }
            catch (IllegalArgumentException ex) {
                refused.add(ex.getMessage());
            }
        }
        SkailContext.current().tag("lote", lote);
        return refused;
    }

    void gatewayFora(boolean fora) {
        this.gatewayFora.set(fora);
    }

    int runs(String taskId) {
        AtomicInteger count = this.runs.get(taskId);
        return (count != null) ? count.get() : 0;
    }

    private void ran() {
        this.runs.computeIfAbsent(SkailContext.current().taskId(), (id) -> new AtomicInteger()).incrementAndGet();
    }
}
