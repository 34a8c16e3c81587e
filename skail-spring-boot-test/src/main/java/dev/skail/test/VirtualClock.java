package dev.skail.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock for tests: the system's time plus an offset that {@link #advance(Duration)} moves forward. Declared as the
 * application's {@link Clock} (see {@link SkailTestConfiguration}), it drives everything the runtime reads of time;
 * advancing it wakes the worker, so the timers that became due fire at once: a 24-hour delay passes in a
 * millisecond.
 */
public class VirtualClock extends Clock {

    private final Clock base;

    private final AtomicLong offsetMillis = new AtomicLong();

    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    public VirtualClock() {
        this(Clock.systemUTC());
    }

    public VirtualClock(Clock base) {
        this.base = base;
    }

    /** Moves time forward and wakes whoever listens (the skail worker). */
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("time only moves forward");
        }
        this.offsetMillis.addAndGet(duration.toMillis());
        this.listeners.forEach(Runnable::run);
    }

    /** How far this clock is ahead of its base. */
    public Duration offset() {
        return Duration.ofMillis(this.offsetMillis.get());
    }

    /** Runs {@code listener} after every {@link #advance(Duration)}. */
    public void onAdvance(Runnable listener) {
        this.listeners.add(listener);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public long millis() {
        return this.base.millis() + this.offsetMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }
}
