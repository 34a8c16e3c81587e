package dev.skail.sample;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import dev.skail.Skail;
import dev.skail.SkailAllowNondeterminism;
import dev.skail.SkailCommand;
import dev.skail.SkailFunction;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Service;

/**
 * The reminder of skail's page "Determinismo e replay", in its two versions: one reads the clock inside the
 * function and breaks on replay; the other reads it through a command and works.
 */
@Service
public class Lembretes {

    private static final Log logger = LogFactory.getLog(Lembretes.class);

    private final Clock clock;

    public Lembretes(Clock clock) {
        this.clock = clock;
    }

    /**
     * Wrong: the function reads the clock. On the first run the delay is 27 days; when the execution wakes 27 days
     * later the same line asks for a delay of 0 days, which is not the step in the history.
     */
    @SkailFunction
    @SkailAllowNondeterminism(reason = "the wrong version of the reminder in skail's docs, kept to show the divergence")
    public void enviarLembreteLendoRelogio(Assinatura assinatura) {
        Duration ateVencimento = Duration.between(this.clock.instant(), assinatura.vencimento()); // not deterministic
        Skail.delay(ateVencimento.minusDays(3));
        notificar(assinatura.usuarioId());
    }

    /** Right: the time comes from a command, recorded, the same on every replay. */
    @SkailFunction
    public void enviarLembrete(Assinatura assinatura) {
        Instant agora = obterDataAtual();
        Skail.delay(Duration.between(agora, assinatura.vencimento()).minusDays(3));
        notificar(assinatura.usuarioId());
    }

    @SkailCommand
    public Instant obterDataAtual() {
        return this.clock.instant();
    }

    @SkailCommand
    public void notificar(String usuarioId) {
        logger.info("lembrete enviado a " + usuarioId);
    }

    /**
     * A subscription.
     *
     * @param usuarioId who to remind
     * @param vencimento when it expires
     */
    public record Assinatura(String usuarioId, Instant vencimento) {
    }
}
