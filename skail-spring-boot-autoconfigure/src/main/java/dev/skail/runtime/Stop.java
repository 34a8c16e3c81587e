package dev.skail.runtime;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.skail.ExecutionStatus;
import dev.skail.platform.Suspend;
import org.jspecify.annotations.Nullable;

/**
 * Why a delivery ends before the function does: a failure that no retry can mend ({@link #fatal}), a suspension
 * (a delay, an event or a child not ready, a command to redeliver), or an abandonment (the store could not be
 * reached, the lease was lost, the runtime stops). The first reason given wins; what the delivery waits for
 * accumulates, because parallel steps may suspend for several reasons at once.
 */
final class Stop {

    private volatile @Nullable RuntimeException fatal;

    private volatile @Nullable String reason;

    private volatile @Nullable RuntimeException abandonCause;

    /** A suspension thrown on the function's own thread: if the function still returns, it swallowed it. */
    private volatile @Nullable Suspension thrownIntoFunction;

    private ExecutionStatus status = ExecutionStatus.WAITING;

    private @Nullable Long until;

    private final Set<String> events = new LinkedHashSet<>();

    private final Set<String> children = new LinkedHashSet<>();

    /** Records a failure for good (divergence, misuse, a statement the store refuses); the first one wins. */
    <E extends RuntimeException> E fatal(E failure) {
        synchronized (this) {
            if (this.fatal == null) {
                this.fatal = failure;
            }
        }
        return failure;
    }

    @Nullable RuntimeException fatal() {
        return this.fatal;
    }

    /** Asks the delivery to end, the execution becoming {@code status} until {@code until}, an event or a child. */
    synchronized Suspension suspend(ExecutionStatus status, @Nullable Long until, @Nullable String event,
            @Nullable String child, String reason) {
        if (status == ExecutionStatus.PENDING) {
            this.status = ExecutionStatus.PENDING;
        }
        if (until != null) {
            this.until = (this.until != null) ? Math.min(this.until, until) : until;
        }
        if (event != null) {
            this.events.add(event);
        }
        if (child != null) {
            this.children.add(child);
        }
        if (this.reason == null) {
            this.reason = reason;
        }
        return new Suspension(reason);
    }

    /** Ends the delivery without counting anything: the execution is given back as it was. */
    Suspension abandon(RuntimeException cause) {
        synchronized (this) {
            if (this.abandonCause == null) {
                this.abandonCause = cause;
            }
            if (this.reason == null) {
                this.reason = "delivery abandoned: " + cause.getMessage();
            }
        }
        return new Suspension("delivery abandoned: " + cause.getMessage());
    }

    /** The suspension to throw at a step reached after the delivery was asked to end. */
    Suspension again() {
        return new Suspension(String.valueOf(this.reason));
    }

    private volatile @Nullable String thrownAt;

    /** Notes a suspension thrown into the function's own code, at {@code where} (its call site). */
    void thrownIntoFunction(Suspension suspension, String where) {
        if (this.thrownIntoFunction == null) {
            this.thrownIntoFunction = suspension;
            this.thrownAt = where;
        }
    }

    @Nullable Suspension thrownIntoFunction() {
        return this.thrownIntoFunction;
    }

    /** Where the function's code got the suspension it may have swallowed. */
    @Nullable String thrownAt() {
        return this.thrownAt;
    }

    boolean stopped() {
        return this.reason != null;
    }

    @Nullable String reason() {
        return this.reason;
    }

    @Nullable RuntimeException abandonCause() {
        return this.abandonCause;
    }

    synchronized Suspend request() {
        return new Suspend(this.status, this.until, Set.copyOf(this.events), Set.copyOf(this.children));
    }
}
