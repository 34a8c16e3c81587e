package dev.skail.sample;

import java.time.Duration;

/** Simulated I/O time of the fake services. */
final class Latency {

    private Latency() {
    }

    static void pause(Duration latency) {
        if (latency.isZero()) {
            return;
        }
        try {
            Thread.sleep(latency.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }
}
