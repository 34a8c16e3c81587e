package dev.skail.runtime;

import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailConflictException;
import dev.skail.SkailExecution;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailStep;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** S5 manual resume: only FAILED; recorded commands do not run again; attempts start over; the key stays (S15). */
class ResumeTests extends SkailTestSupport {

    @Test
    void resumedExecutionRunsOnlyWhatFailedWithFreshAttemptsAndTheSameKey() {
        this.effects.breakFor("resume-1");
        this.client.trigger("pagarFatura", "resume-1", "resume-1");
        SkailExecution failed = awaitStatus("resume-1", ExecutionStatus.FAILED);
        assertThat(failed.error().message()).isEqualTo("bank offline");
        List<SkailStep> before = steps("resume-1");
        String sendKey = before.get(1).idempotencyKey();

        this.effects.fix("resume-1");
        SkailExecution resumed = this.client.resume("resume-1");

        assertThat(resumed.status()).isEqualTo(ExecutionStatus.PENDING);
        SkailExecution done = awaitStatus("resume-1", ExecutionStatus.COMPLETED);
        assertThat(done.result(String.class)).isEqualTo("PAID");
        assertThat(done.attempt()).isEqualTo(2);
        List<String> notes = this.effects.notes("resume-1");
        // "before" ran once; enviarPagamento: two attempts, then after the resume its attempts start over at 1
        assertThat(notes).filteredOn((note) -> note.startsWith("before")).hasSize(1);
        assertThat(notes).filteredOn((note) -> note.startsWith("send")).containsExactly(
                "send " + sendKey + " attempt 1", "send " + sendKey + " attempt 2", "send " + sendKey + " attempt 1");
        assertThat(steps("resume-1").get(1).status()).isEqualTo("COMPLETED");
    }

    @Test
    void onlyAFailedExecutionCanBeResumed() {
        this.client.trigger("processarPedido", "resume-done", "resume-done");
        awaitStatus("resume-done", ExecutionStatus.COMPLETED);

        assertThatExceptionOfType(SkailConflictException.class).isThrownBy(() -> this.client.resume("resume-done"))
            .withMessageContaining("only a FAILED execution can be resumed");
        assertThatExceptionOfType(SkailNotFoundException.class).isThrownBy(() -> this.client.resume("nobody"));
    }
}
