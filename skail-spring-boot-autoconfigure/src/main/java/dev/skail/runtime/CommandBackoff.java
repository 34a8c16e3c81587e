package dev.skail.runtime;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * A command's own backoff settings, as its annotation gives them; empty or zero values fall back to the global
 * {@code skail.retry.backoff.*}.
 *
 * @param initial the first wait, e.g. {@code "500ms"}, or empty
 * @param multiplier the growth per attempt, or 0
 * @param max the longest wait, or empty
 * @param jitter the randomization, or 0
 */
public record CommandBackoff(String initial, double multiplier, String max, double jitter) {

    static final CommandBackoff NONE = new CommandBackoff("", 0, "", 0);

    /** The backoff this command uses, given the global one. */
    public Backoff applyTo(Backoff global) {
        return global.with(duration(this.initial), this.multiplier, duration(this.max), this.jitter);
    }

    /** Why these settings are invalid, or {@code null}. */
    @Nullable String problem() {
        try {
            duration(this.initial);
            duration(this.max);
        }
        catch (IllegalArgumentException ex) {
            return "backoff duration is not valid: " + ex.getMessage();
        }
        if (this.multiplier != 0 && this.multiplier < 1) {
            return "backoffMultiplier must be 1 or more (0 for the global one), not " + this.multiplier;
        }
        if (this.jitter < 0 || this.jitter >= 1) {
            return "backoffJitter must be at least 0 and below 1, not " + this.jitter;
        }
        Duration initial = duration(this.initial);
        Duration max = duration(this.max);
        if (initial != null && max != null && max.compareTo(initial) < 0) {
            return "backoffMax " + this.max + " is shorter than backoffInitial " + this.initial;
        }
        return null;
    }

    private static @Nullable Duration duration(String value) {
        return value.isBlank() ? null : DurationStyle.detectAndParse(value);
    }
}
