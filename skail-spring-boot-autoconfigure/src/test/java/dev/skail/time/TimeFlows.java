package dev.skail.time;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;
import dev.skail.SkailTask;

/** Functions that use delays, events, parallel steps, children and the recorded helpers. */
public class TimeFlows {

    final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

    final Map<String, List<String>> notes = new ConcurrentHashMap<>();

    volatile CyclicBarrier barrier = new CyclicBarrier(2);

    volatile CountDownLatch releaseSlow = new CountDownLatch(1);

    int runs(String key) {
        return this.runs.getOrDefault(key, new AtomicInteger()).get();
    }

    List<String> notes(String taskId) {
        return this.notes.getOrDefault(taskId, List.of());
    }

    private int ran(String what) {
        return this.runs.computeIfAbsent(SkailContext.current().taskId() + "/" + what, (k) -> new AtomicInteger())
            .incrementAndGet();
    }

    private void note(String value) {
        this.notes.computeIfAbsent(SkailContext.current().taskId(), (k) -> new CopyOnWriteArrayList<>()).add(value);
    }

    // -------------------------------------------------------------- delays

    @SkailFunction
    public String reservarEsperarCobrar(String id) {
        reservar(id);
        Skail.delay(Duration.ofHours(24));
        return cobrar(id);
    }

    @SkailFunction
    public void dormir(String id) {
        Skail.delayMinutes(60);
        registrar(id);
    }

    @SkailCommand
    public String reservar(String id) {
        ran("reservar");
        return "reserved";
    }

    @SkailCommand
    public String cobrar(String id) {
        ran("cobrar");
        return "charged";
    }

    @SkailCommand
    public void registrar(String id) {
        ran("registrar");
    }

    // -------------------------------------------------------------- events

    @SkailFunction
    public String aprovar(String id) {
        reservar(id);
        Aprovacao aprovacao = Skail.waitForEvent("aprovacao", Aprovacao.class);
        return aprovacao.aprovador() + ":" + aprovacao.aprovado();
    }

    @SkailFunction
    public List<String> colher(String id) {
        String first = Skail.waitForEvent("item", String.class);
        String second = Skail.waitForEvent("item", String.class);
        String third = Skail.waitForEvent("item", String.class);
        return List.of(first, second, third);
    }

    @SkailFunction
    public String aprovarComPrazo(String id) {
        Optional<Aprovacao> aprovacao = Skail.waitForEvent("aprovacao", Aprovacao.class, Duration.ofDays(7));
        return aprovacao.map((a) -> "approved by " + a.aprovador()).orElse("expired");
    }

    // -------------------------------------------------------------- parallel steps

    @SkailFunction
    public String paralelo(String id) {
        SkailTask<String> a = Skail.async(() -> esperarOutro("a"));
        SkailTask<String> b = Skail.async(() -> esperarOutro("b"));
        Skail.whenAll(a, b);
        depois(id);
        return a.await() + b.await();
    }

    @SkailCommand
    public String esperarOutro(String name) {
        ran("esperarOutro-" + name);
        try {
            // both commands must be inside this call at once for the barrier to open
            this.barrier.await(10, TimeUnit.SECONDS);
        }
        catch (Exception ex) {
            throw new IllegalStateException("the other parallel step never came", ex);
        }
        return name;
    }

    @SkailCommand
    public void depois(String id) {
        if (ran("depois") == 1) {
            throw new IllegalStateException("first run fails, to make the function replay the parallel steps");
        }
    }

    /** S5 with parallel steps: the failed one (not the last in the history) runs again on the function's retry. */
    @SkailFunction(retryCount = 1)
    public String paraleloFalha(String id) {
        SkailTask<String> a = Skail.async(() -> falhaNaPrimeiraRodada(id));
        SkailTask<String> b = Skail.async(() -> rapido(id));
        Skail.whenAll(a, b);
        return a.await() + b.await();
    }

    @SkailCommand(retryCount = 0)
    public String falhaNaPrimeiraRodada(String id) {
        if (ran("falhaNaPrimeiraRodada") == 1) {
            throw new IllegalStateException("first function attempt fails");
        }
        return "a";
    }

    @SkailFunction
    public String corrida(String id) {
        SkailTask<String> lento = Skail.async(() -> lento(id));
        SkailTask<String> rapido = Skail.async(() -> rapido(id));
        SkailTask<?> first = Skail.whenAny(lento, rapido);
        String winner = (first == rapido) ? "rapido" : "lento";
        note("winner " + winner);
        this.releaseSlow.countDown();
        Skail.whenAll(lento, rapido);
        depois(id);
        return winner;
    }

    @SkailCommand
    public String lento(String id) {
        ran("lento");
        try {
            this.releaseSlow.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return "lento";
    }

    @SkailCommand
    public String rapido(String id) {
        ran("rapido");
        return "rapido";
    }

    // -------------------------------------------------------------- children

    @SkailFunction
    public String pai(String id) {
        reservar(id);
        String filho = filho(id + "-item");
        return "parent got " + filho;
    }

    @SkailFunction
    public String filho(String item) {
        registrar(item);
        return "child did " + item;
    }

    @SkailFunction
    public String paiCompensa(String id) {
        try {
            filhoFalha(id);
            return "unexpected";
        }
        catch (IllegalStateException ex) {
            return "parent caught " + ex.getClass().getSimpleName() + ": " + ex.getMessage();
        }
    }

    /** The child's failure leaves the parent, which is redelivered: the failed child is not started again. */
    @SkailFunction(retryCount = 1)
    public String paiNaoCompensa(String id) {
        note("parent body");
        return filhoFalha(id);
    }

    @SkailFunction(retryCount = 1)
    public String filhoFalha(String id) {
        registrar(id);
        throw new IllegalStateException("child failed for " + id);
    }

    // -------------------------------------------------------------- recorded helpers

    @SkailFunction
    public String carimbar(String id) {
        Instant now = Skail.now();
        UUID uuid = Skail.randomUUID();
        note(now + " " + uuid);
        depois(id);
        return uuid.toString();
    }

    /** An approval event's payload. */
    public record Aprovacao(String aprovador, boolean aprovado) {
    }
}
