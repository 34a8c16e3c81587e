package dev.skail.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/** Runs {@code count} executions on {@code threads} threads of their own, each taking the next index until none is left. */
final class Threads {

    private Threads() {
    }

    static void forEach(int threads, int count, IntConsumer execution) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                        execution.accept(i);
                    }
                }
                finally {
                    done.countDown();
                }
            });
            thread.start();
        }
        done.await();
    }
}
