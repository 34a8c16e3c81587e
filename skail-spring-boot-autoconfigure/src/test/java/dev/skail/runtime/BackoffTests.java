package dev.skail.runtime;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** S18 and per-command backoff: progressive, capped, optionally randomized. */
class BackoffTests {

    private final Backoff global = new Backoff(Duration.ofSeconds(1), 2, Duration.ofMinutes(5));

    @Test
    void commandSettingsOverrideTheGlobalOnesAndTheRestIsKept() {
        Backoff own = new CommandBackoff("500ms", 3, "", 0).applyTo(this.global);

        assertThat(new long[] { own.millis(1), own.millis(2), own.millis(3) }).containsExactly(500, 1500, 4500);
        assertThat(own.max()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void emptyCommandSettingsAreTheGlobalBackoff() {
        assertThat(new CommandBackoff("", 0, "", 0).applyTo(this.global)).isEqualTo(this.global);
    }

    @Test
    void jitterSpreadsEachWaitWithinItsFraction() {
        Backoff jittered = new CommandBackoff("", 0, "", 0.2).applyTo(this.global);
        Set<Long> waits = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            long wait = jittered.millis(2);
            assertThat(wait).isBetween(1600L, 2400L);
            waits.add(wait);
        }
        assertThat(waits).hasSizeGreaterThan(10);
    }

    @Test
    void invalidCommandSettingsAreReportedAndRejected() {
        assertThat(new CommandBackoff("soon", 0, "", 0).problem()).contains("not valid");
        assertThat(new CommandBackoff("", 0.5, "", 0).problem()).contains("backoffMultiplier");
        assertThat(new CommandBackoff("", 0, "", 1.5).problem()).contains("backoffJitter");
        assertThat(new CommandBackoff("10s", 0, "1s", 0).problem()).contains("shorter");
        assertThatIllegalArgumentException().isThrownBy(() -> new Backoff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1)));
    }
}
