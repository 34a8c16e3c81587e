package dev.skail.runtime;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;

/**
 * A flow whose values are money and times: what the function and its command see of them is kept in {@link Seen},
 * run by run, so a test can tell whether a replay gives the function the same values.
 */
public class ExactValueFlows {

    private final Seen seen;

    public ExactValueFlows(Seen seen) {
        this.seen = seen;
    }

    /** An order line. */
    public record Item(String sku, int quantidade, BigDecimal preco) {
    }

    /** An order: an amount of scale 2, a time with its offset, lines. */
    public record Pedido(UUID id, BigDecimal valor, OffsetDateTime criadoEm, List<Item> itens) {
    }

    /** What the charge command answers: the values it was given, and some of its own. */
    public record Cobranca(BigDecimal valor, OffsetDateTime criadoEm, List<Item> itens, Map<String, BigDecimal> totais,
            Instant cobradoEm) {
    }

    /** What the function returns. */
    public record Recibo(Pedido pedido, Cobranca cobranca, BigDecimal pago, BigDecimal total, Instant agora,
            UUID protocolo) {
    }

    @SkailFunction
    public Recibo pagarPedido(Pedido pedido) {
        this.seen.see("pedido", pedido);
        Cobranca cobranca = cobrarPedido(pedido);
        this.seen.see("cobranca", cobranca);
        BigDecimal pago = Skail.waitForEvent("pago", BigDecimal.class);
        this.seen.see("pago", pago);
        Instant agora = Skail.now();
        this.seen.see("agora", agora);
        UUID protocolo = Skail.randomUUID();
        this.seen.see("protocolo", protocolo);
        BigDecimal total = somarItens(pedido.itens());
        this.seen.see("total", total);
        confirmarPagamento(pedido.id(), pago);
        return new Recibo(pedido, cobranca, pago, total, agora, protocolo);
    }

    /** Echoes the values it is given, and notes them. */
    @SkailCommand
    public Cobranca cobrarPedido(Pedido pedido) {
        this.seen.commandSaw(pedido);
        Map<String, BigDecimal> totais = new LinkedHashMap<>();
        totais.put("valor", pedido.valor());
        totais.put("exato", new BigDecimal("12345678901234567.89"));
        return new Cobranca(pedido.valor(), pedido.criadoEm(), pedido.itens(), totais,
                Instant.parse("2026-03-01T07:15:30.123456789Z"));
    }

    /** A child execution whose result is a BigDecimal: the sum of the lines, with their scale. */
    @SkailFunction
    public BigDecimal somarItens(List<Item> itens) {
        BigDecimal total = BigDecimal.ZERO.setScale(2);
        for (Item item : itens) {
            total = total.add(item.preco().multiply(BigDecimal.valueOf(item.quantidade())));
        }
        return total;
    }

    /** Fails on its first run, so the function is replayed from its first line once more. */
    @SkailCommand
    public void confirmarPagamento(UUID pedidoId, BigDecimal pago) {
        if (this.seen.run(SkailContext.current().taskId() + "/confirmarPagamento") == 1) {
            throw new IllegalStateException("the ledger is not reachable (first run)");
        }
    }

    /** A function of an int, to repeat triggers with {@code 1} and {@code 1.0}. */
    @SkailFunction
    public int repetir(String id, int vezes, BigDecimal valor) {
        return vezes;
    }

    /** What the flows saw, per execution. */
    public static class Seen {

        private final Map<String, List<Object>> values = new ConcurrentHashMap<>();

        private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

        void see(String what, Object value) {
            this.values.computeIfAbsent(SkailContext.current().taskId() + "/" + what,
                    (key) -> new CopyOnWriteArrayList<>()).add(value);
        }

        void commandSaw(Pedido pedido) {
            see("command saw", pedido);
        }

        int run(String what) {
            return this.runs.computeIfAbsent(what, (key) -> new AtomicInteger()).incrementAndGet();
        }

        /** Every value the execution saw at this point, one per run of the function that reached it. */
        public List<Object> seen(String taskId, String what) {
            return new ArrayList<>(this.values.getOrDefault(taskId + "/" + what, List.of()));
        }
    }
}
