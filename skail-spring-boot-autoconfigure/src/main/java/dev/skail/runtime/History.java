package dev.skail.runtime;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import dev.skail.platform.AttemptRow;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoredHistory;
import org.jspecify.annotations.Nullable;

/**
 * The recorded steps of one execution, by position, as one delivery sees them: what earlier deliveries recorded, and
 * what this one records as it goes. It also remembers which recorded failures were thrown into the function, and
 * how far the function had got when it saw each, to decide which failed steps a function retry may drop (S5).
 */
final class History {

    private final Map<Integer, StepRow> steps = new ConcurrentHashMap<>();

    private final Map<Integer, Integer> attemptsSoFar = new ConcurrentHashMap<>();

    private final int lastRecordedPosition;

    /** The furthest position an earlier delivery reached: its last recorded step, or a step it attempted. */
    private final int lastReachedPosition;

    /** Failed command steps thrown into the function, by exception identity: their positions. */
    private final Map<Throwable, Integer> thrown = Collections.synchronizedMap(new IdentityHashMap<>());

    /** For each failure thrown into the function: the first position the function could reach after seeing it. */
    private final Map<Throwable, Integer> seenAt = Collections.synchronizedMap(new IdentityHashMap<>());

    /** The positions of the failed command steps this delivery recorded. */
    private final Set<Integer> failedNow = ConcurrentHashMap.newKeySet();

    History(StoredHistory history) {
        int last = -1;
        for (StepRow step : history.steps()) {
            this.steps.put(step.position(), step);
            last = Math.max(last, step.position());
        }
        this.lastRecordedPosition = last;
        int reached = last;
        int functionAttempt = history.execution().attempt();
        for (AttemptRow attempt : history.attempts()) {
            reached = Math.max(reached, attempt.position());
            if (attempt.functionAttempt() == functionAttempt) {
                this.attemptsSoFar.merge(attempt.position(), 1, Integer::sum);
            }
        }
        this.lastReachedPosition = reached;
    }

    @Nullable StepRow at(int position) {
        return this.steps.get(position);
    }

    void put(StepRow step) {
        this.steps.put(step.position(), step);
        if (StepRow.FAILED.equals(step.status()) && StepRow.COMMAND.equals(step.kind())) {
            this.failedNow.add(step.position());
        }
    }

    /** Whether the history holds the {@link StepRow#CANCEL} step: the function has seen its cancellation. */
    boolean cancelled() {
        return this.steps.values().stream().anyMatch((step) -> StepRow.CANCEL.equals(step.kind()));
    }

    /** How many attempts of the step at this position the current function attempt has made already. */
    int attemptsSoFar(int position) {
        return this.attemptsSoFar.getOrDefault(position, 0);
    }

    int lastRecordedPosition() {
        return this.lastRecordedPosition;
    }

    int lastReachedPosition() {
        return this.lastReachedPosition;
    }

    /**
     * Why the recorded step at this position is not the one the function asks for (S10), or {@code null} when it is
     * (or when nothing is recorded there).
     */
    @Nullable String mismatch(int position, String kind, String name, @Nullable String arguments) {
        StepRow recorded = this.steps.get(position);
        if (recorded == null || (recorded.kind().equals(kind) && recorded.name().equals(name)
                && (arguments == null || arguments.equals(recorded.arguments())))) {
            return null;
        }
        return "the history has " + describe(recorded) + " there, but the function now asks for " + kind + " '" + name
                + "'" + ((arguments != null) ? " " + arguments : "");
    }

    static String describe(StepRow step) {
        return step.kind() + " '" + step.name() + "'"
                + ((StepRow.DELAY.equals(step.kind()) || StepRow.EVENT.equals(step.kind())
                        || StepRow.WHEN_ANY.equals(step.kind())) ? " " + step.arguments() : "");
    }

    /** Notes that the failure recorded at {@code position} was thrown into the function. */
    void thrown(Throwable failure, int position) {
        this.thrown.put(failure, position);
    }

    /** Notes that the function saw this failure when it could go on at {@code nextPosition}. */
    void seen(Throwable failure, int nextPosition) {
        if (this.thrown.containsKey(failure)) {
            this.seenAt.merge(failure, nextPosition, Math::min);
        }
    }

    /**
     * The failed command steps a function retry drops, so that their commands run their attempts again (S5): a
     * failure the function saw, provided it recorded nothing after seeing it (judged on the history as it stands,
     * before anything is dropped), and a failure this delivery recorded that the function never saw (an async step
     * it did not await). A failure the function reacted to (it compensated, then rethrew) stays: the replay follows
     * the recorded failure path, and the command never runs again (S2). So does a failure recorded by an earlier
     * delivery that this one did not reach.
     */
    Set<Integer> failuresToDrop() {
        Map<Integer, Integer> seenFrom = new java.util.HashMap<>();
        synchronized (this.thrown) {
            this.thrown.forEach((failure, position) -> {
                Integer seen = this.seenAt.get(failure);
                if (seen != null) {
                    seenFrom.merge(position, seen, Math::min);
                }
            });
        }
        Set<Integer> positions = new TreeSet<>();
        for (StepRow step : this.steps.values()) {
            if (!StepRow.FAILED.equals(step.status()) || !StepRow.COMMAND.equals(step.kind())) {
                continue;
            }
            Integer seen = seenFrom.get(step.position());
            if ((seen != null) ? !recordedFrom(seen) : this.failedNow.contains(step.position())) {
                positions.add(step.position());
            }
        }
        return positions;
    }

    private boolean recordedFrom(int position) {
        return this.steps.keySet().stream().anyMatch((recorded) -> recorded >= position);
    }
}
