package dev.skail.runtime;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** How many times a command ran, per key (an order, say), for the tests that count runs across threads. */
final class RunCounts {

    private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    void ran(String key) {
        this.counts.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
    }

    int of(String key) {
        AtomicInteger count = this.counts.get(key);
        return (count != null) ? count.get() : 0;
    }
}
