package dev.skail.availability;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;

/** Functions that are in flight (running, or waiting for a timer or an event) when the store goes away. */
public class OutageFlows {

    /** How many times each command ran, by execution id. */
    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    @SkailFunction
    public String pedido(String id) {
        String reserva = reservar(id);
        Skail.delay(Duration.ofMillis(500));
        return confirmar(reserva);
    }

    @SkailFunction
    public String aprovacao(String id) {
        String aprovado = Skail.waitForEvent("aprovado", String.class);
        return confirmar(id + ":" + aprovado);
    }

    @SkailCommand
    public String reservar(String id) {
        this.runs.computeIfAbsent(id, (key) -> new AtomicInteger()).incrementAndGet();
        return "reserva-" + id;
    }

    @SkailCommand
    public String confirmar(String what) {
        return "confirmado-" + what;
    }
}
