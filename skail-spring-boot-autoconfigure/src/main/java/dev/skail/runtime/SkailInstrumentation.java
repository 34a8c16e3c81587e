package dev.skail.runtime;

/**
 * What the runtime reports for metrics and observations. The default does nothing; with Micrometer on the class
 * path, {@code dev.skail.actuate.MicrometerSkailInstrumentation} turns it into meters and observations.
 * Low-cardinality values (function, command, outcome, decision) are kept apart from the high-cardinality task id.
 */
public interface SkailInstrumentation {

    /** Reports nothing. */
    SkailInstrumentation NONE = new SkailInstrumentation() {
    };

    /** A trigger created an execution. */
    default void executionStarted(String function) {
    }

    /** An execution ended: {@code outcome} is {@code completed} or {@code failed}. */
    default void executionEnded(String function, String outcome) {
    }

    /** An attempt of a step or of the function was recorded, with the runtime's decision. */
    default void attempt(String function, String step, String outcome, String decision) {
    }

    /** The replay of recorded steps took this long in a delivery. */
    default void replayed(String function, long nanos) {
    }

    /** A delivery starts, {@code lagMillis} after the execution was due. */
    default Span delivery(String taskId, String function, long lagMillis) {
        return Span.NONE;
    }

    /** A command runs for real (it was not in the history). */
    default Span command(String taskId, String function, String command) {
        return Span.NONE;
    }

    /** Something that ends with an outcome. */
    @FunctionalInterface
    interface Span {

        /** Ends nothing. */
        Span NONE = (outcome) -> {
        };

        /** Ends it: {@code outcome} is e.g. {@code success}, {@code failure}, {@code suspended}. */
        void end(String outcome);
    }
}
