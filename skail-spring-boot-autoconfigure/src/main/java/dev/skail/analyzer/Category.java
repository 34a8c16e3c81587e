package dev.skail.analyzer;

/** The sources of non-determinism of skail's "Determinismo e replay", and the fix for each. */
public enum Category {

    CLOCK("reads the clock, which moves between the first run and a replay",
            "use Skail.now(), or move it into a @SkailCommand that returns the time"),

    RANDOM("draws a random value, different on every replay",
            "use Skail.randomUUID(), or move it into a @SkailCommand, or receive the value as an argument"),

    ENVIRONMENT("reads the environment or configuration, which can change between replays",
            "read it in a @SkailCommand, or pass it to the function as an argument"),

    IO("does I/O: the result can change and the effect repeats on every replay",
            "move it into a @SkailCommand"),

    SLEEP("sleeps: it records no step, holds a thread, and a replay does not find it",
            "use Skail.delay(...)"),

    CONCURRENCY("runs work concurrently outside the runtime, in an order a replay cannot reproduce",
            "use Skail.async(...) with Skail.whenAll / Skail.whenAny, or move it into a @SkailCommand");

    private final String problem;

    private final String fix;

    Category(String problem, String fix) {
        this.problem = problem;
        this.fix = fix;
    }

    public String problem() {
        return this.problem;
    }

    public String fix() {
        return this.fix;
    }
}
