package dev.skail.replay;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import dev.skail.SkailTask;

/** Functions whose replay used to diverge or fail where it must not, in the order domain of skail's docs. */
public class ReplayFlows {

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    private final AtomicInteger asyncThreadsPeak = new AtomicInteger();

    /** The delay the function {@code esperarPrazo} asks for: a test changes it between deliveries. */
    volatile Duration prazo = Duration.ofHours(1);

    int runs(String what) {
        AtomicInteger count = this.runs.get(what);
        return (count != null) ? count.get() : 0;
    }

    private int ran(String what) {
        return this.runs.computeIfAbsent(what, (key) -> new AtomicInteger()).incrementAndGet();
    }

    int asyncThreadsPeak() {
        return this.asyncThreadsPeak.get();
    }

    /** Compensate, then rethrow: the charge is made once and the compensation follows the recorded failure. */
    @SkailFunction(retryCount = 2)
    public String processarPedido(String pedido) {
        try {
            cobrarCartao(pedido, new BigDecimal("150.00"));
        }
        catch (PagamentoRecusadoException ex) {
            estornarEstoque(pedido);
            throw ex;
        }
        confirmarPedido(pedido);
        return "confirmado";
    }

    @SkailCommand(retryCount = 0)
    public String cobrarCartao(String pedido, BigDecimal valor) {
        if (ran("cobrarCartao/" + pedido) == 1) {
            throw new PagamentoRecusadoException(pedido, valor);
        }
        return "cobrado " + valor;
    }

    @SkailCommand
    public void estornarEstoque(String pedido) {
        ran("estornarEstoque/" + pedido);
    }

    @SkailCommand
    public void confirmarPedido(String pedido) {
        ran("confirmarPedido/" + pedido);
    }

    /** Throws on its second delivery before it has replayed its first step: a transient failure, not a divergence. */
    @SkailFunction(retryCount = 3)
    public String reservarComFalhaNoReplay(String pedido) {
        if (ran("reservarComFalhaNoReplay/" + pedido) == 2) {
            throw new IllegalStateException("estoque indisponível por um instante");
        }
        reservarEstoque(pedido);
        Skail.delay(Duration.ofMinutes(1));
        return "reservado";
    }

    @SkailCommand
    public void reservarEstoque(String pedido) {
        ran("reservarEstoque/" + pedido);
    }

    /** Fans out many commands at once. */
    @SkailFunction
    public long reservarItens(int itens) {
        List<SkailTask<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < itens; i++) {
            int item = i;
            tasks.add(Skail.async(() -> reservarItem(item)));
        }
        Skail.whenAll(tasks.toArray(SkailTask[]::new));
        long total = 0;
        for (SkailTask<Integer> task : tasks) {
            total += task.await();
        }
        return total;
    }

    @SkailCommand
    public int reservarItem(int item) {
        long asyncThreads = Thread.getAllStackTraces().keySet().stream()
            .filter((thread) -> thread.getName().startsWith("skail-async-"))
            .count();
        this.asyncThreadsPeak.accumulateAndGet((int) asyncThreads, Math::max);
        return item;
    }

    /** Reads skail's time: it must not be the application's business clock. */
    @SkailFunction
    public Instant lembrarAmanha(String pedido) {
        Skail.delay(Duration.ofMillis(300));
        return Skail.now();
    }

    /** Catches Throwable around a step and carries on: it swallows skail's suspension. */
    @SkailFunction
    public String engolirSuspensao(String pedido) {
        try {
            Skail.delay(Duration.ofHours(1));
        }
        catch (Throwable ex) {
            // a user's blanket catch
        }
        return "engolido";
    }

    /** Waits as long as {@link #prazo} says at the time of the call. */
    @SkailFunction
    public String esperarPrazo(String pedido) {
        Skail.delay(this.prazo);
        confirmarPedido(pedido);
        return "confirmado";
    }

    /** Waits for the payment at most as long as {@link #prazo} says at the time of the call. */
    @SkailFunction
    public String aguardarPagamento(String pedido) {
        String pagamento = Skail.waitForEvent("pagamento", String.class, this.prazo).orElse("nenhum");
        confirmarPedido(pedido);
        return pagamento;
    }

    /**
     * Cuts the customer's note to a summary (in the middle of an emoji, as {@code substring} may), then waits a day:
     * the replay after the wait sees the summary as the command returned it.
     */
    @SkailFunction
    public String resumirNota(String pedido, String nota) {
        String resumo = cortarNota(pedido, nota, 8);
        Skail.delay(Duration.ofDays(1));
        confirmarPedido(pedido);
        return resumo;
    }

    @SkailCommand
    public String cortarNota(String pedido, String nota, int tamanho) {
        ran("cortarNota/" + pedido);
        return nota.substring(0, tamanho);
    }

    /** A payment refused by the gateway. */
    public static class PagamentoRecusadoException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String pedido;

        private final BigDecimal valor;

        public PagamentoRecusadoException(String pedido, BigDecimal valor) {
            super("pagamento de " + valor + " recusado para " + pedido);
            this.pedido = pedido;
            this.valor = valor;
        }

        public String pedido() {
            return this.pedido;
        }

        public BigDecimal valor() {
            return this.valor;
        }
    }
}
