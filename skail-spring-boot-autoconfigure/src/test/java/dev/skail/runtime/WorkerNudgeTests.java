package dev.skail.runtime;

import dev.skail.ExecutionStatus;
import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** A trigger in the same process wakes the worker: with a poll every hour, the execution still runs at once. */
@TestPropertySource(properties = "skail.worker.poll-interval=1h")
class WorkerNudgeTests extends SkailTestSupport {

    @Test
    void triggerInTheSameProcessStartsWithoutWaitingForTheNextPoll() {
        this.client.trigger("processarPedido", "fail-1-nudge", "fail-1-nudge");

        // the failed attempt's redelivery (no backoff here) is picked up when the delivery ends, not at the next poll
        awaitStatus("fail-1-nudge", ExecutionStatus.COMPLETED);
        assertThat(this.effects.count("fail-1-nudge", "cobrarCartao")).isEqualTo(2);
    }
}
