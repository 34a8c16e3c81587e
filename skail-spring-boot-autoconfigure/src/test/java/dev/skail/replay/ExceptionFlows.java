package dev.skail.replay;

import java.math.BigDecimal;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.acme.banco.SaldoInsuficienteException;
import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.client.HttpClientErrorException;

/**
 * Functions that catch their commands' exceptions by type and read them, then sleep so that they are replayed:
 * what each delivery saw is kept, to compare the first run with the replay.
 */
public class ExceptionFlows {

    private final Map<String, List<String>> seen = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    List<String> seen(String pedido) {
        return this.seen.getOrDefault(pedido, List.of());
    }

    int runs(String what) {
        AtomicInteger count = this.runs.get(what);
        return (count != null) ? count.get() : 0;
    }

    private void ran(String what) {
        this.runs.computeIfAbsent(what, (key) -> new AtomicInteger()).incrementAndGet();
    }

    private void saw(String pedido, String what) {
        this.seen.computeIfAbsent(pedido, (key) -> new CopyOnWriteArrayList<>()).add(what);
    }

    /** Spring's HTTP exception, caught by type, its status, headers and body read. */
    @SkailFunction
    public String cobrarNoGateway(String pedido) {
        String outcome;
        try {
            outcome = chamarGateway(pedido);
        }
        catch (HttpClientErrorException.Conflict ex) {
            outcome = "recusado " + ex.getStatusCode().value() + " " + ex.getResponseBodyAsString() + " "
                    + ex.getResponseHeaders().getFirst("X-Request-Id");
            estornarEstoque(pedido);
        }
        saw(pedido, outcome);
        Skail.delay(Duration.ofMinutes(5));
        return outcome;
    }

    @SkailCommand(retryCount = 0)
    public String chamarGateway(String pedido) {
        ran("chamarGateway/" + pedido);
        HttpHeaders headers = new HttpHeaders();
        headers.set("X-Request-Id", "req-" + pedido);
        throw HttpClientErrorException.create(HttpStatus.CONFLICT, "Conflict", headers,
                "{\"code\":\"card_declined\",\"amount\":150.00}".getBytes(StandardCharsets.UTF_8),
                StandardCharsets.UTF_8);
    }

    /** A business exception with only a multi-argument constructor and fields, and a chain of causes. */
    @SkailFunction
    public String debitarConta(String pedido) {
        String outcome;
        try {
            outcome = debitar(pedido, new BigDecimal("150.00"));
        }
        catch (SaldoInsuficienteException ex) {
            Throwable cause = ex.getCause();
            outcome = ex.getMessage() + " | " + ex.getAccount() + " | " + ex.getMissing() + " | "
                    + cause.getClass().getSimpleName() + ": " + cause.getMessage() + " | "
                    + cause.getCause().getClass().getSimpleName() + ": " + cause.getCause().getMessage();
            estornarEstoque(pedido);
        }
        saw(pedido, outcome);
        Skail.delay(Duration.ofMinutes(5));
        return outcome;
    }

    @SkailCommand(retryCount = 0)
    public String debitar(String pedido, BigDecimal valor) throws SaldoInsuficienteException {
        ran("debitar/" + pedido);
        SaldoInsuficienteException refused = new SaldoInsuficienteException("0001-9", valor);
        refused.initCause(new IllegalStateException("saldo consultado às 10:15",
                new SocketTimeoutException("read timed out")));
        throw refused;
    }

    @SkailCommand
    public void estornarEstoque(String pedido) {
        ran("estornarEstoque/" + pedido);
    }
}
