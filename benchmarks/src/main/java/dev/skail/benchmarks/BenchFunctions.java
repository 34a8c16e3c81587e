package dev.skail.benchmarks;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;

/**
 * The functions under measure, the same shapes as the side-by-side harness of the peers: a function of {@code n}
 * sequential no-op commands (each returns its input + 1), a function whose one command notes when it starts (E), and a
 * function that sleeps then runs one command (D), and a function of {@code n} commands that each take and return an
 * order (G: what an application records, rather than an {@code int}).
 */
public class BenchFunctions {

    /** E: {@link System#nanoTime()} when the body of an execution's first command started, by execution id. */
    static final Map<String, Long> FIRST_COMMAND_NANOS = new ConcurrentHashMap<>();

    /** D: how many times {@link #wake(int)} ran (once per execution woken). */
    static final LongAdder WOKEN = new LongAdder();

    /** How long {@link #sleeper(int)} sleeps: far beyond the run, the clock of D is moved past it. */
    static final Duration SLEEP = Duration.ofHours(1);

    /** A, B and C: {@code n} sequential commands; returns {@code x + n}. */
    @SkailFunction
    public int steps(int n, int x) {
        int value = x;
        for (int i = 0; i < n; i++) {
            value = inc(value);
        }
        return value;
    }

    /** A no-op command: its input + 1. */
    @SkailCommand
    public int inc(int x) {
        return x + 1;
    }

    /** E: one command, which notes the time it starts. */
    @SkailFunction
    public int probe(int x) {
        return mark(x);
    }

    @SkailCommand
    public int mark(int x) {
        FIRST_COMMAND_NANOS.putIfAbsent(SkailContext.current().taskId(), System.nanoTime());
        return x;
    }

    /** D: sleeps, then one command. */
    @SkailFunction
    public int sleeper(int x) {
        Skail.delay(SLEEP);
        return wake(x);
    }

    /** D's command: a no-op that counts its runs, so the harness need not ask the store until they have all run. */
    @SkailCommand
    public int wake(int x) {
        WOKEN.increment();
        return x + 1;
    }

    /** G: an order as the seeds' domain has it, about 2 KB of JSON with its items. */
    public record Pedido(UUID pedidoId, OffsetDateTime criadoEm, BigDecimal total, List<Item> itens, int conferencias) {
    }

    public record Item(String sku, String descricao, int quantidade, BigDecimal precoUnitario) {
    }

    /** G: {@code n} sequential commands, each receiving the order and returning it checked once more. */
    @SkailFunction
    public Pedido conferir(int n, Pedido pedido) {
        Pedido current = pedido;
        for (int i = 0; i < n; i++) {
            current = conferirItens(current);
        }
        return current;
    }

    /** G's command: the order back with its total recomputed from its items and one more check counted. */
    @SkailCommand
    public Pedido conferirItens(Pedido pedido) {
        BigDecimal total = BigDecimal.ZERO.setScale(2);
        for (Item item : pedido.itens()) {
            total = total.add(item.precoUnitario().multiply(BigDecimal.valueOf(item.quantidade())));
        }
        return new Pedido(pedido.pedidoId(), pedido.criadoEm(), total, pedido.itens(), pedido.conferencias() + 1);
    }

    /** G: an order of {@code items} items, its total not yet computed (0.00). */
    static Pedido pedido(int items) {
        List<Item> itens = new ArrayList<>();
        for (int i = 0; i < items; i++) {
            itens.add(new Item("SKU-" + (1000 + i), "Item de catálogo número " + i + ", embalagem padrão", 1 + (i % 3),
                    new BigDecimal("19.90").add(BigDecimal.valueOf(i, 2))));
        }
        return new Pedido(UUID.nameUUIDFromBytes(("pedido-" + items).getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                OffsetDateTime.parse("2026-12-02T09:15:30.125-03:00"), new BigDecimal("0.00"), itens, 0);
    }
}
