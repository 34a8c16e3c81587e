package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The mechanism that ends a delivery early cannot be swallowed by catch (Exception e) in user code. */
class SuspensionTests extends SkailTestSupport {

    @Test
    void catchExceptionAroundARetriedCommandDoesNotSeeTheRedelivery() {
        this.client.trigger("engolirExcecoes", "fail-2-swallow", "fail-2-swallow");

        SkailExecution execution = awaitStatus("fail-2-swallow", ExecutionStatus.COMPLETED);

        assertThat(execution.result(String.class)).isEqualTo("APPROVED");
        assertThat(this.effects.notes("fail-2-swallow")).isEmpty();
        assertThat(this.effects.count("fail-2-swallow", "cobrarCartao")).isEqualTo(3);
        assertThat(this.effects.count("fail-2-swallow", "reservarEstoque")).isEqualTo(1);
    }
}
