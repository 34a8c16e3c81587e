package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailExecution;
import dev.skail.SkailStep;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** S1, S2: replay from the first line; a recorded step never runs again. */
class ReplayTests extends SkailTestSupport {

    @Test
    void functionRunsEveryCommandOnceAndRecordsEachStepInOrder() {
        this.client.trigger("processarPedido", "ok-1", "ok-1");

        SkailExecution execution = awaitStatus("ok-1", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).isEqualTo("APPROVED");
        assertStepNames(steps("ok-1"), "reservarEstoque", "cobrarCartao", "confirmarPedido");
        assertThat(steps("ok-1")).extracting(SkailStep::status).containsOnly("COMPLETED");
        assertThat(steps("ok-1").get(0).result(String.class)).isEqualTo("reserved ok-1");
        assertThat(this.effects.count("ok-1", "reservarEstoque")).isEqualTo(1);
        assertThat(this.effects.count("ok-1", "cobrarCartao")).isEqualTo(1);
        assertThat(this.effects.count("ok-1", "confirmarPedido")).isEqualTo(1);
    }

    @Test
    void recordedCommandDoesNotRunAgainWhenTheFunctionIsReplayed() {
        // cobrarCartao fails twice: the function is delivered three times, reservarEstoque runs once
        this.client.trigger("processarPedido", "fail-2-replay", "fail-2-replay");

        awaitStatus("fail-2-replay", ExecutionStatus.COMPLETED);

        assertThat(this.effects.count("fail-2-replay", "reservarEstoque")).isEqualTo(1);
        assertThat(this.effects.count("fail-2-replay", "cobrarCartao")).isEqualTo(3);
        assertThat(this.effects.count("fail-2-replay", "confirmarPedido")).isEqualTo(1);
        SkailStep charge = steps("fail-2-replay").get(1);
        assertThat(charge.attempts()).extracting(SkailAttempt::outcome)
            .containsExactly("FAILED", "FAILED", "SUCCEEDED");
        assertThat(charge.attempts()).extracting(SkailAttempt::decision)
            .containsExactly("RETRY", "RETRY", "RECORDED");
    }

    @Test
    void commandOfAnotherBeanIsAStepOfTheFunction() {
        this.client.trigger("reservarEmOutroBean", "other-bean", "SKU-1", 3);

        SkailExecution execution = awaitStatus("other-bean", ExecutionStatus.COMPLETED);

        assertThat(execution.result(int.class)).isEqualTo(3);
        assertStepNames(steps("other-bean"), "reservar", "confirmarPedido");
        assertThat(this.effects.count("other-bean", "reservar")).isEqualTo(1);
    }
}
