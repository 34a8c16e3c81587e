package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import dev.skail.SkailNonDeterministicException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** S10: a replay that reaches a different step than the history fails the execution. */
class NonDeterminismTests extends SkailTestSupport {

    @Test
    void stepThatDiffersFromTheRecordedOneFailsTheExecutionNamingBoth() {
        this.client.trigger("divergir", "diverge-1", "diverge-1");

        SkailExecution execution = awaitStatus("diverge-1", ExecutionStatus.FAILED);

        assertThat(execution.error().type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(execution.error().message()).contains("step 0").contains("'passoA'").contains("'passoC'");
        assertThat(this.effects.count("diverge-1", "passoC")).isZero();
        assertThat(this.effects.count("diverge-1", "divergir-body")).isEqualTo(2);
    }

    @Test
    void userCodeThatCatchesEverythingCannotHideTheDivergence() {
        this.client.trigger("divergirEsconder", "diverge-hidden", "diverge-hidden");

        SkailExecution execution = awaitStatus("diverge-hidden", ExecutionStatus.FAILED);

        assertThat(this.effects.notes("diverge-hidden")).containsExactly("hid SkailNonDeterministicException");
        assertThat(execution.error().type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(execution.result()).isNull();
        // passoB was recorded as attempted once in the first delivery and never ran after the divergence
        assertThat(this.effects.count("diverge-hidden", "passoB")).isEqualTo(1);
    }

    @Test
    void functionThatEndsBeforeTheStepsItRecordedFailsAsDivergence() {
        this.client.trigger("encurtar", "short-1", "short-1");

        SkailExecution execution = awaitStatus("short-1", ExecutionStatus.FAILED);

        assertThat(execution.error().type()).isEqualTo(SkailNonDeterministicException.class.getName());
        assertThat(execution.error().message()).contains("ended after 0 step(s)").contains("'passoA'");
    }
}
