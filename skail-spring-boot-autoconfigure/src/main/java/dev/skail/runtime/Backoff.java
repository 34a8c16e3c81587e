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
 * @param jitter the fraction by which each wait is randomized either way (0 for none)
 */
public record Backoff(Duration initial, double multiplier, Duration max, double jitter) {

    public Backoff {
        if (initial.isNegative() || max.compareTo(initial) < 0 || multiplier < 1.0 || jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("Backoff needs 0 <= initial <= max, multiplier >= 1 and "
                    + "0 <= jitter < 1, not " + initial + ", " + max + ", " + multiplier + ", " + jitter);
        }
    }

    public Backoff(Duration initial, double multiplier, Duration max) {
        this(initial, multiplier, max, 0);
    }

    /** The wait after the {@code attempt}-th failure, counting from 1. */
    public long millis(int attempt) {
        if (this.initial.isZero()) {
            return 0;
        }
        long wait = IntervalFunction.ofExponentialBackoff(this.initial, this.multiplier, this.max).apply(attempt);
        if (this.jitter == 0) {
            return wait;
        }
        double factor = 1 + this.jitter * (2 * java.util.concurrent.ThreadLocalRandom.current().nextDouble() - 1);
        return Math.round(wait * factor);
    }

    /** This backoff with a command's own settings where it has them. */
    public Backoff with(@org.jspecify.annotations.Nullable Duration initial, double multiplier,
            @org.jspecify.annotations.Nullable Duration max, double jitter) {
        Duration newInitial = (initial != null) ? initial : this.initial;
        Duration newMax = (max != null) ? max : (this.max.compareTo(newInitial) < 0 ? newInitial : this.max);
        return new Backoff(newInitial, (multiplier != 0) ? multiplier : this.multiplier, newMax,
                (jitter != 0) ? jitter : this.jitter);
    }
}
