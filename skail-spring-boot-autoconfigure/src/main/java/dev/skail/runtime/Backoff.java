package dev.skail.runtime;

import java.time.Duration;

import io.github.resilience4j.core.IntervalFunction;

/**
 * How long a redelivery waits after a failure (S18): {@code initial}, then multiplied by {@code multiplier} on
 * every further attempt, never above {@code max}. With the defaults: 1 s, 2 s, 4 s, 8 s ... up to 5 minutes.
 *
 * @param initial the wait after the first failure
 * @param multiplier the growth per attempt
 * @param max the cap
 */
public record Backoff(Duration initial, double multiplier, Duration max) {

    public Backoff {
        if (initial.isNegative() || max.compareTo(initial) < 0 || multiplier < 1.0) {
            throw new IllegalArgumentException("Backoff needs 0 <= initial <= max and multiplier >= 1, not " + initial
                    + ", " + max + ", " + multiplier);
        }
    }

    /** The wait after the {@code attempt}-th failure, counting from 1. */
    public long millis(int attempt) {
        if (this.initial.isZero()) {
            return 0;
        }
        return IntervalFunction.ofExponentialBackoff(this.initial, this.multiplier, this.max).apply(attempt);
    }
}
