package dev.skail;

import dev.skail.runtime.CurrentExecution;

/**
 * What the runtime knows about the step that is running on this thread. Available inside a
 * {@link SkailFunction} and inside a {@link SkailCommand} called from one; {@link #current()} throws outside
 * an execution, {@link #isActive()} tells beforehand.
 */
public interface SkailContext {

    /** The context of the execution running on this thread. */
    static SkailContext current() {
        return CurrentExecution.requireContext();
    }

    /** Whether this thread is running a function or a command of an execution. */
    static boolean isActive() {
        return CurrentExecution.context() != null;
    }

    /** The execution's id. */
    String taskId();

    /** The workload's name, e.g. {@code vendas}. */
    String workload();

    /** The workload's version the execution belongs to, e.g. {@code v1.0.0}. */
    String version();

    /** The function's name. */
    String functionName();

    /**
     * The attempt number, starting at 1: inside a command, the command's attempt; inside a function, the
     * function's delivery attempt.
     */
    int attempt();

    /** Whether the function is still replaying steps already in the history. Always false inside a command. */
    boolean isReplaying();

    /** The name of the command running, or {@code null} inside the function's own code. */
    @org.jspecify.annotations.Nullable String commandName();

    /**
     * The command step's idempotency key: made from the execution and the step's position before the first
     * attempt, the same on every attempt, restart and resume, and different for every other step and execution.
     * Pass it to the systems the command calls so they recognise a repeat.
     * @throws IllegalStateException outside a command
     */
    String idempotencyKey();

    /**
     * Tags the execution with a business key, e.g. {@code SkailContext.current().tag("nota", notaFiscal.numero())},
     * so that it can be found by it ({@link SkailQuery#withTag}, the HTTP API, the Monitor). A tag is not a step: it
     * is written at once (under the execution's lease, like its steps), kept once however often it is given (a
     * replay that tags again writes nothing), and never removed; adding or removing a {@code tag} call does not change
     * the history. A key may have several values. Known before the execution starts? Use {@link SkailTag} on the
     * function's parameter instead: the tag is then there from the trigger on.
     * @param key 1 to 64 letters, digits, {@code . _ -}
     * @param value a {@code String}, {@code UUID}, number, {@code boolean}, {@code char} or enum; its text (as with
     * {@link SkailTag}) has 1 to 200 characters and is not blank
     * @throws IllegalArgumentException if the key or the value is not one a tag can have
     */
    void tag(String key, Object value);
}
