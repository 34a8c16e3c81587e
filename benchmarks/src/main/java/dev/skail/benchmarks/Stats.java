package dev.skail.benchmarks;

import java.util.Arrays;

/** Percentiles of measured durations (nearest rank), in the units the tables use. */
final class Stats {

    private final long[] sorted;

    private Stats(long[] nanos) {
        this.sorted = nanos.clone();
        Arrays.sort(this.sorted);
    }

    static Stats of(long[] nanos) {
        if (nanos.length == 0) {
            throw new IllegalArgumentException("nothing measured");
        }
        return new Stats(nanos);
    }

    /** The {@code p}-th percentile in milliseconds: the smallest value that at least p % of the values do not pass. */
    double ms(double p) {
        int rank = (int) Math.ceil(p / 100.0 * this.sorted.length);
        return this.sorted[Math.max(0, Math.min(this.sorted.length - 1, rank - 1))] / 1e6;
    }

    double meanMs() {
        return Arrays.stream(this.sorted).average().orElse(0) / 1e6;
    }

    double maxMs() {
        return this.sorted[this.sorted.length - 1] / 1e6;
    }
}
