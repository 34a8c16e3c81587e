package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailExecution;
import dev.skail.SkailStep;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** S3, S4: a failing command is retried by redelivery; the function sees only the final exception. */
class CommandFailureTests extends SkailTestSupport {

    @Test
    void commandThatRecoversWithinItsRetriesIsInvisibleToTheFunction() {
        this.client.trigger("processarPedido", "fail-1-recovers", "fail-1-recovers");

        SkailExecution execution = awaitStatus("fail-1-recovers", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).isEqualTo("APPROVED");
        assertThat(this.effects.count("fail-1-recovers", "cobrarCartao")).isEqualTo(2);
        assertThat(this.effects.notes("fail-1-recovers")).isEmpty();
    }

    @Test
    void spentRetriesThrowTheCommandsOwnExceptionAtTheCallWhereTheFunctionCompensates() {
        // retryCount = 2: three attempts in all, then GatewayException reaches the catch in processarPedido
        this.client.trigger("processarPedido", "fail-9-spent", "fail-9-spent");

        SkailExecution execution = awaitStatus("fail-9-spent", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).isEqualTo("COMPENSATED");
        assertThat(this.effects.count("fail-9-spent", "cobrarCartao")).isEqualTo(3);
        assertThat(this.effects.count("fail-9-spent", "liberarEstoque")).isEqualTo(1);
        assertThat(this.effects.count("fail-9-spent", "confirmarPedido")).isZero();
        assertThat(this.effects.notes("fail-9-spent"))
            .containsExactly("caught dev.skail.runtime.GatewayException: gateway unavailable (run 3)");
        SkailStep charge = steps("fail-9-spent").get(1);
        assertThat(charge.status()).isEqualTo("FAILED");
        assertThat(charge.error().type()).isEqualTo(GatewayException.class.getName());
        assertThat(charge.error().message()).isEqualTo("gateway unavailable (run 3)");
        assertThat(charge.attempts()).extracting(SkailAttempt::decision).containsExactly("RETRY", "RETRY", "GIVE_UP");
        assertThat(charge.attempts()).extracting((attempt) -> attempt.error().message())
            .containsExactly("gateway unavailable (run 1)", "gateway unavailable (run 2)", "gateway unavailable (run 3)");
    }

    @Test
    void recordedExceptionIsThrownAgainWithItsClassAndMessageOnReplay() {
        // after the compensation starts, liberarEstoque fails once: the next delivery replays the failed charge
        this.client.trigger("processarPedido", "fail-9-flaky-release", "fail-9-flaky-release");

        awaitStatus("fail-9-flaky-release", ExecutionStatus.COMPLETED);

        assertThat(this.effects.count("fail-9-flaky-release", "cobrarCartao")).isEqualTo(3);
        assertThat(this.effects.count("fail-9-flaky-release", "liberarEstoque")).isEqualTo(2);
        assertThat(this.effects.notes("fail-9-flaky-release")).hasSize(2)
            .containsOnly("caught dev.skail.runtime.GatewayException: gateway unavailable (run 3)");
    }

    @Test
    void noRetryForExceptionReachesTheFunctionAtOnceAndIsLoggedAsNotRetryable() {
        // NumberFormatException is an IllegalArgumentException: definitive for consultarReceita
        this.client.trigger("validarCpf", "cpf-1", "invalid-123");

        SkailExecution execution = awaitStatus("cpf-1", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).isEqualTo("INVALID: CPF invalid-123 has no valid check digits");
        assertThat(this.effects.count("cpf-1", "consultarReceita")).isEqualTo(1);
        assertThat(steps("cpf-1").get(0).attempts()).extracting(SkailAttempt::decision)
            .containsExactly("NOT_RETRYABLE");
    }

    @Test
    void otherExceptionsOfACommandWithNoRetryForAreStillRetried() {
        this.client.trigger("validarCpf", "cpf-2", "timeout-then-invalid");

        SkailExecution execution = awaitStatus("cpf-2", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).startsWith("INVALID");
        assertThat(steps("cpf-2").get(0).attempts()).extracting(SkailAttempt::decision)
            .containsExactly("RETRY", "NOT_RETRYABLE");
    }

    @Test
    void retryCountZeroThrowsIntoTheFunctionAtTheFirstFailure() {
        this.client.trigger("debitar", "debit-1", "conta-1");

        SkailExecution execution = awaitStatus("debit-1", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).isEqualTo("REFUSED: insufficient funds");
        assertThat(this.effects.count("debit-1", "debitarSaldo")).isEqualTo(1);
        assertThat(steps("debit-1").get(0).attempts()).extracting(SkailAttempt::decision).containsExactly("GIVE_UP");
    }
}
