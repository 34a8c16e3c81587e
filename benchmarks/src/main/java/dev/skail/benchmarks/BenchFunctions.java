package dev.skail.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import dev.skail.Skail;
import dev.skail.SkailCommand;
import dev.skail.SkailContext;
import dev.skail.SkailFunction;

/**
 * The functions under measure, the same shapes as the side-by-side harness of the peers: a function of {@code n}
 * sequential no-op commands (each returns its input + 1), a function whose one command notes when it starts (E), and a
 * function that sleeps then runs one command (D).
 */
public class BenchFunctions {

    /** E: {@link System#nanoTime()} when the body of an execution's first command started, by execution id. */
    static final Map<String, Long> FIRST_COMMAND_NANOS = new ConcurrentHashMap<>();

    /** D: how many times {@link #wake(int)} ran (once per execution woken). */
    static final LongAdder WOKEN = new LongAdder();

    /** How long {@link #sleeper(int)} sleeps: far beyond the run, the clock of D is moved past it. */
    static final Duration SLEEP = Duration.ofHours(1);

    /** A, B and C: {@code n} sequential commands; returns {@code x + n}. */
    @SkailFunction
    public int steps(int n, int x) {
        int value = x;
        for (int i = 0; i < n; i++) {
            value = inc(value);
        }
        return value;
    }

    /** A no-op command: its input + 1. */
    @SkailCommand
    public int inc(int x) {
        return x + 1;
    }

    /** E: one command, which notes the time it starts. */
    @SkailFunction
    public int probe(int x) {
        return mark(x);
    }

    @SkailCommand
    public int mark(int x) {
        FIRST_COMMAND_NANOS.putIfAbsent(SkailContext.current().taskId(), System.nanoTime());
        return x;
    }

    /** D: sleeps, then one command. */
    @SkailFunction
    public int sleeper(int x) {
        Skail.delay(SLEEP);
        return wake(x);
    }

    /** D's command: a no-op that counts its runs, so the harness need not ask the store until they have all run. */
    @SkailCommand
    public int wake(int x) {
        WOKEN.increment();
        return x + 1;
    }
}
