package dev.skail.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntConsumer;

/** Runs {@code count} executions on {@code threads} threads of their own, each taking the next index until none is left. */
final class Threads {

    private Threads() {
    }

    /**
     * @throws IllegalStateException after every thread ended, when an execution failed (the first failure, as its
     * cause): a thread stops at its first failure, the others go on
     */
    static void forEach(int threads, int count, IntConsumer execution) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        execution.accept(i);
                    }
                }
                catch (RuntimeException | Error ex) {
                    failure.compareAndSet(null, ex);
                }
                finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException("an execution failed", failure.get());
        }
    }
}
