package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** S5: an exception that leaves the function is redelivered up to the function's retryCount. */
class FunctionFailureTests extends SkailTestSupport {

    @Test
    void failingFunctionIsRedeliveredWithoutRunningItsCompletedCommandsAgainThenFails() {
        this.client.trigger("faturar", "invoice-1", "pedido-1");

        SkailExecution execution = awaitStatus("invoice-1", ExecutionStatus.FAILED);

        // retryCount = 2: three function attempts; the command completed in the first one runs once
        assertThat(this.effects.count("invoice-1", "faturar-body")).isEqualTo(3);
        assertThat(this.effects.count("invoice-1", "emitirNota")).isEqualTo(1);
        assertThat(execution.error().type()).isEqualTo(IllegalArgumentException.class.getName());
        assertThat(execution.error().message()).isEqualTo("tax code missing for pedido-1");
        SkailHistory history = history("invoice-1");
        assertThat(history.functionAttempts()).extracting(SkailAttempt::decision)
            .containsExactly("RETRY", "RETRY", "GIVE_UP");
        assertThat(history.functionAttempts()).extracting(SkailAttempt::functionAttempt).containsExactly(1, 2, 3);
        assertThat(history.steps()).hasSize(1);
    }

    @Test
    void uncaughtCommandFailureRunsTheCommandsAttemptsOnEveryFunctionAttempt() {
        // command retryCount = 1 (2 attempts), function retryCount = 1 (2 attempts): 2 x 2 runs
        this.client.trigger("sincronizar", "sync-1", "sync-1");

        SkailExecution execution = awaitStatus("sync-1", ExecutionStatus.FAILED);

        assertThat(this.effects.count("sync-1", "enviarAoErp")).isEqualTo(4);
        assertThat(execution.error().type()).isEqualTo(IllegalStateException.class.getName());
        assertThat(execution.error().message()).isEqualTo("ERP offline (run 4)");
        assertThat(execution.attempt()).isEqualTo(2);
        // the failed step of a failed function attempt is dropped so that the next attempt runs it again
        assertThat(history("sync-1").steps()).hasSize(1);
        assertThat(history("sync-1").steps().get(0).attempts()).extracting(SkailAttempt::functionAttempt)
            .containsExactly(1, 1, 2, 2);
    }
}
