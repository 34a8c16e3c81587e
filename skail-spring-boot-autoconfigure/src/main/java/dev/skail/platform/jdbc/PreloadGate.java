package dev.skail.platform.jdbc;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps a background preloading and the store's opening from initializing the same classes at once: whichever comes
 * first decides. A preloading that opens first runs, and the store waits for it to be over (a store that is not H2's
 * only for the pool's classes, which the preloading loads first); a store that comes first closes the gate, and the
 * preloading then does nothing. Once per class loader, like the classes it is about.
 */
final class PreloadGate {

    private static final int IDLE = 0;

    private static final int RUNNING = 1;

    private static final int OVER = 2;

    private final AtomicInteger state = new AtomicInteger(IDLE);

    private final CountDownLatch over = new CountDownLatch(1);

    private final CountDownLatch poolReady = new CountDownLatch(1);

    /** @return whether the preloading may run (then {@link #over} must follow): nothing opened or closed it before */
    boolean open() {
        return this.state.compareAndSet(IDLE, RUNNING);
    }

    /** Tells that the preloading {@link #open} let run is done with the pool's classes (and the drivers'). */
    void poolReady() {
        this.poolReady.countDown();
    }

    /** Ends the preloading {@link #open} let run. */
    void over() {
        this.state.set(OVER);
        this.poolReady.countDown();
        this.over.countDown();
    }

    /**
     * Closes the gate if no preloading opened it, else waits for the one that did to be over, or done with the pool's
     * classes (at most {@code most}).
     * @param h2 whether the store is H2's (then the whole preloading is waited for, H2's part included)
     * @return whether the preloading touches none of the store's classes any more (false: it still did after
     * {@code most}, or the thread was interrupted)
     */
    boolean closeOrAwait(Duration most, boolean h2) {
        if (this.state.compareAndSet(IDLE, OVER)) {
            this.poolReady.countDown();
            this.over.countDown();
            return true;
        }
        try {
            return (h2 ? this.over : this.poolReady).await(most.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
