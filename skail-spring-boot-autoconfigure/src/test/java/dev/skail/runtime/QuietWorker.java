package dev.skail.runtime;

import java.time.Duration;

import org.awaitility.Awaitility;

/** For tests that need a trigger handed its execution: a worker at rest, its last claim having found nothing. */
final class QuietWorker {

    private QuietWorker() {
    }

    /**
     * Waits until the worker runs nothing, its last claim drained the store (else a trigger leaves its execution to its
     * turn) and no poll is asked for or runs (a poll left asked for would claim before the test's trigger, or be the
     * claim a test holds); then a trigger waits for a claim at most {@code claimWait}.
     */
    static void await(SkailWorker worker, Duration claimWait) {
        worker.claimWait(claimWait);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            boolean idle = worker.busy() == 0 && worker.drained();
            if (!idle) {
                worker.nudge();
            }
            return idle && worker.quiet();
        });
    }
}
