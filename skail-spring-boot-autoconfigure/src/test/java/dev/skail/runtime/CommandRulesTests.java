package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import dev.skail.SkailExecution;
import dev.skail.SkailUsageException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** S16: commands do not call commands or functions. */
class CommandRulesTests extends SkailTestSupport {

    @Test
    void commandWhoseResultCannotBeRecordedFailsTheExecutionWithoutRunningAgain() {
        this.client.trigger("guardarOpaco", "opaque-1", "opaque-1");

        SkailExecution execution = awaitStatus("opaque-1", ExecutionStatus.FAILED);

        assertThat(execution.error().type()).isEqualTo(SkailUsageException.class.getName());
        assertThat(execution.error().message()).contains("devolverOpaco").contains("cannot be written as JSON");
        assertThat(this.effects.count("opaque-1", "devolverOpaco")).isEqualTo(1);
    }

    @Test
    void commandCallingACommandFailsTheExecutionAtOnceWithAClearError() {
        this.client.trigger("aninhar", "nested-1", "nested-1");

        SkailExecution execution = awaitStatus("nested-1", ExecutionStatus.FAILED);

        assertThat(execution.error().type()).isEqualTo(SkailUsageException.class.getName());
        assertThat(execution.error().message()).contains("comandoQueChamaComando").contains("reservarEstoque")
            .contains("commands do not call commands, functions or skail primitives");
        // not retried: a usage error would only repeat
        assertThat(this.effects.count("nested-1", "comandoQueChamaComando")).isEqualTo(1);
        assertThat(this.effects.count("nested-1", "reservarEstoque")).isZero();
    }
}
