package dev.skail.platform.local;

import java.util.function.LongSupplier;

/**
 * Group commit: a caller whose write carries a mark (a store version, a log position) returns once a force that covers
 * it has ended; whichever waiting caller finds no force in hand performs the next one, for every mark made until
 * then. A force that throws makes nothing durable: its failure is told to the caller that performed it, and the
 * others wait for the next force (one of them performs it).
 * <p>
 * Waiting ignores interrupts (the interrupt is kept for after): a write is applied before it waits, so a caller told
 * anything before its write is durable would act on what a crash may still undo.
 * <p>
 * Public for the benchmarks' floors; not an API of skail.
 */
public final class GroupForce {

    private final Object lock = new Object();

    /** The highest mark known durable. Guarded by {@link #lock}. */
    private long durable;

    /** Whether a caller performs a force now. Guarded by {@link #lock}. */
    private boolean forcing;

    private long forces;

    /**
     * @param durable the highest mark durable already
     */
    public GroupForce(long durable) {
        this.durable = durable;
    }

    /**
     * Returns once {@code mark} is durable.
     * @param force performs one force and returns the highest mark it covers (read before it forces)
     */
    public void await(long mark, LongSupplier force) {
        boolean interrupted = false;
        try {
            while (true) {
                synchronized (this.lock) {
                    while (this.durable < mark && this.forcing) {
                        try {
                            this.lock.wait();
                        }
                        catch (InterruptedException ex) {
                            interrupted = true;
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
                        if (covered != Long.MIN_VALUE) {
                            this.forces++;
                        }
                        this.durable = Math.max(this.durable, covered);
                        this.lock.notifyAll();
                    }
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** How many forces have ended. */
    public long forces() {
        synchronized (this.lock) {
            return this.forces;
        }
    }
}
