package dev.skail.benchmarks;

import java.util.function.LongSupplier;

/**
 * Group commit for the floors of a store of record ({@link ForcedLog}, {@link MapStoreFloor}): a caller whose write
 * carries a mark (a log position, a store version) returns once a force that covers it has ended; whichever waiting
 * caller finds no force in hand performs the next one, for every mark made until then.
 */
final class GroupForce {

    private final Object lock = new Object();

    /** The highest mark known durable. */
    private long durable;

    private boolean forcing;

    GroupForce(long durable) {
        this.durable = durable;
    }

    /**
     * Returns once {@code mark} is durable.
     * @param force performs one force and returns the highest mark it covers (read before it forces); a force that
     * throws makes nothing durable
     */
    void await(long mark, LongSupplier force) {
        while (true) {
            synchronized (this.lock) {
                while (this.durable < mark && this.forcing) {
                    try {
                        this.lock.wait();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(ex);
                    }
                }
                if (this.durable >= mark) {
                    return;
                }
                this.forcing = true;
            }
            long covered = Long.MIN_VALUE;
            try {
                covered = force.getAsLong();
            }
            finally {
                synchronized (this.lock) {
                    this.forcing = false;
                    this.durable = Math.max(this.durable, covered);
                    this.lock.notifyAll();
                }
            }
        }
    }
}
