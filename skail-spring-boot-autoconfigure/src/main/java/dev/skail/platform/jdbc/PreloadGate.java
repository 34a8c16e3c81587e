package dev.skail.platform.jdbc;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps a background preloading and the store's opening from initializing the same classes at once: whichever comes
 * first decides. A preloading that opens first runs, and the store waits for it to be over; a store that comes first
 * closes the gate, and the preloading then does nothing. Once per class loader, like the classes it is about.
 */
final class PreloadGate {

    private static final int IDLE = 0;

    private static final int RUNNING = 1;

    private static final int OVER = 2;

    private final AtomicInteger state = new AtomicInteger(IDLE);

    private final CountDownLatch over = new CountDownLatch(1);

    /** @return whether the preloading may run (then {@link #over} must follow): nothing opened or closed it before */
    boolean open() {
        return this.state.compareAndSet(IDLE, RUNNING);
    }

    /** Ends the preloading {@link #open} let run. */
    void over() {
        this.state.set(OVER);
        this.over.countDown();
    }

    /**
     * Closes the gate if no preloading opened it, else waits for the one that did to be over (at most {@code most}).
     * @return whether no preloading runs any more (false: it was still running after {@code most}, or the thread was
     * interrupted)
     */
    boolean closeOrAwait(Duration most) {
        if (this.state.compareAndSet(IDLE, OVER)) {
            this.over.countDown();
            return true;
        }
        try {
            return this.over.await(most.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
