package dev.skail.runtime;

import java.util.List;

import dev.skail.ExecutionStatus;
import dev.skail.SkailContext;
import dev.skail.SkailStep;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/** S15: each command step has a key, the same on every attempt, different for every other step and execution. */
class IdempotencyKeyTests extends SkailTestSupport {

    @Test
    void keyIsStableAcrossAttemptsAndDiffersBetweenStepsAndExecutions() {
        this.client.trigger("chaves", "fail-2-keys", "fail-2-keys");
        this.client.trigger("chaves", "keys-other", "keys-other");
        awaitStatus("fail-2-keys", ExecutionStatus.COMPLETED);
        awaitStatus("keys-other", ExecutionStatus.COMPLETED);

        List<SkailStep> steps = steps("fail-2-keys");
        String first = steps.get(0).idempotencyKey();
        String charge = steps.get(1).idempotencyKey();
        String third = steps.get(2).idempotencyKey();
        assertThat(this.effects.notes("fail-2-keys")).containsExactly("first " + first + " attempt 1",
                "charge " + charge + " attempt 1", "charge " + charge + " attempt 2", "charge " + charge + " attempt 3",
                "third " + third + " attempt 1");
        assertThat(List.of(first, charge, third)).doesNotHaveDuplicates();
        assertThat(steps("keys-other")).extracting(SkailStep::idempotencyKey).doesNotContain(first, charge, third);
    }

    @Test
    void keyIsOnlyAvailableInsideACommand() {
        assertThatIllegalStateException().isThrownBy(() -> SkailContext.current().idempotencyKey())
            .withMessageContaining("No skail execution is running");
    }
}
