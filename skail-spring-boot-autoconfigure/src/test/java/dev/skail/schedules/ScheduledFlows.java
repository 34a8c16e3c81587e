package dev.skail.schedules;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;
import dev.skail.SkailSchedule;

import org.springframework.stereotype.Service;

/**
 * Scheduled functions of the order domain. Each calls a command that counts, per execution, how many times it ran:
 * what a user would see as reports sent. The counts are shared by every application context of the JVM (the tests
 * with two instances count both).
 */
@Service
public class ScheduledFlows {

    /** How many times the command of each execution ran, by execution id. */
    static final Map<String, AtomicInteger> SENT = new ConcurrentHashMap<>();

    @SkailFunction
    @SkailSchedule(cron = "${schedules-test.relatorio.cron:0 0 * * * *}")
    public String relatorioDePedidos() {
        return enviarRelatorio("pedidos");
    }

    @SkailFunction
    @SkailSchedule(cron = "0 30 6 * * *", zone = "America/Sao_Paulo")
    public String fechamentoDoCaixa() {
        return enviarRelatorio("caixa");
    }

    @SkailFunction
    @SkailSchedule(cron = "${schedules-test.conciliacao.cron:0 15 * * * *}", missed = SkailSchedule.Missed.ALL)
    public String conciliarPagamentos() {
        return enviarRelatorio("conciliacao");
    }

    @SkailFunction
    @SkailSchedule(cron = "${schedules-test.expirados.cron:-}")
    public String cancelarPedidosExpirados() {
        return enviarRelatorio("expirados");
    }

    @SkailCommand
    public String enviarRelatorio(String tipo) {
        String taskId = SkailContext.current().taskId();
        SENT.computeIfAbsent(taskId, (id) -> new AtomicInteger()).incrementAndGet();
        return tipo + " enviado por " + taskId;
    }

    static int sent(String taskId) {
        AtomicInteger count = SENT.get(taskId);
        return (count != null) ? count.get() : 0;
    }
}
