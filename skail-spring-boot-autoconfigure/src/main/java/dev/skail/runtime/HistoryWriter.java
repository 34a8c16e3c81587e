package dev.skail.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.Tag;
import org.jspecify.annotations.Nullable;

/**
 * Writes one delivery's steps and attempts to the store, each fenced by the delivery's lease, and keeps the in-memory
 * {@link History} in step. The store makes each write idempotent under its own retries (a commit whose
 * acknowledgement was lost is not a conflict). What the store cannot do decides how the delivery ends: a transport
 * failure or a lost lease abandons it (nothing is counted, S11); a statement the store refuses fails it for good,
 * since retrying would be refused again.
 */
final class HistoryWriter {

    private final ExecutionStore store;

    private final Lease lease;

    private final History history;

    private final Stop stop;

    private final Supplier<Long> leaseUntil;

    /** Whether this delivery started a child: the child is due at once (see {@link DeliveryRunner#deliver}). */
    private volatile boolean startedChild;

    HistoryWriter(ExecutionStore store, Lease lease, History history, Stop stop, Supplier<Long> leaseUntil) {
        this.store = store;
        this.lease = lease;
        this.history = history;
        this.stop = stop;
        this.leaseUntil = leaseUntil;
    }

    /**
     * Steps kept back: in the history already, written with the delivery's next write. Only a step that acknowledges
     * nothing to anybody is kept back: a PENDING delay or event wait the delivery goes to sleep on (if it is lost, the
     * replay reaches that wait again and records it then, as if the process had stopped just before it), and a delay
     * found due (lost, the replay finds it due again). A command's outcome, a recorded value, an event taken are
     * written before the function goes on.
     */
    private final List<StepRow> keptBack = new ArrayList<>();

    /** Records a step (inserted, or completing the PENDING step at its position), with its attempt if any. */
    void step(StepRow step, @Nullable AttemptRow attempt, long now) {
        List<StepRow> steps = takeKeptBack();
        if (steps.isEmpty()) {
            write(() -> {
                this.store.recordStep(this.lease, step, attempt, now, this.leaseUntil.get());
                return null;
            });
        }
        else {
            steps.add(step);
            write(() -> {
                this.store.recordSteps(this.lease, steps, attempt, now, this.leaseUntil.get());
                return null;
            });
        }
        this.history.put(step);
    }

    /**
     * Keeps back a step that acknowledges nothing (see {@link #keptBack}): the history has it at once, the store with
     * the delivery's next write (its suspension, typically: a delay goes to sleep in one write).
     */
    void keepBack(StepRow step) {
        synchronized (this.keptBack) {
            this.keptBack.add(step);
        }
        this.history.put(step);
    }

    /** The steps kept back, for the delivery's suspension to write with it; none are kept back any longer. */
    List<StepRow> takeKeptBack() {
        synchronized (this.keptBack) {
            List<StepRow> steps = new ArrayList<>(this.keptBack);
            this.keptBack.clear();
            return steps;
        }
    }

    /** Writes the steps kept back, if any, before a write that does not carry them. */
    void flush(long now) {
        List<StepRow> steps = takeKeptBack();
        if (!steps.isEmpty()) {
            write(() -> {
                this.store.recordSteps(this.lease, steps, null, now, this.leaseUntil.get());
                return null;
            });
        }
    }

    /** Records the step where the function sees its cancellation, in place of a PENDING step at its position. */
    void cancel(StepRow step, long now) {
        flush(now);
        write(() -> {
            this.store.recordCancel(this.lease, step, now, this.leaseUntil.get());
            return null;
        });
        this.history.put(step);
    }

    /** Records an attempt of a step that has no outcome yet. */
    void attempt(AttemptRow attempt, long now) {
        flush(now);
        write(() -> {
            this.store.recordAttempt(this.lease, attempt, now, this.leaseUntil.get());
            return null;
        });
    }

    /** Creates the child execution, with its tags, and records the parent's PENDING step that started it. */
    void startChild(StepRow pending, ExecutionRow child, List<Tag> childTags, long now) {
        // set before the write: a write whose outcome is unknown may have created the child
        this.startedChild = true;
        flush(now);
        write(() -> {
            this.store.startChild(this.lease, pending, child, childTags, now, this.leaseUntil.get());
            return null;
        });
        this.history.put(pending);
    }

    boolean startedChild() {
        return this.startedChild;
    }

    /** Tags the execution, unless the store has that tag already. */
    void tag(Tag tag, long now) {
        flush(now);
        write(() -> {
            this.store.tag(this.lease, tag, now, this.leaseUntil.get());
            return null;
        });
    }

    /** The execution's tags as stored; a transport failure abandons the delivery. */
    List<Tag> tags() {
        try {
            return this.store.tags(List.of(this.lease.taskId())).getOrDefault(this.lease.taskId(), List.of());
        }
        catch (LeaseLostException | StoreUnavailableException ex) {
            throw this.stop.abandon(ex);
        }
    }

    /** Consumes the oldest kept event of this name, recording the step made of it. */
    Optional<EventRow> takeEvent(String name, Function<EventRow, StepRow> step, long now) {
        flush(now);
        Optional<EventRow> taken = write(() -> this.store.takeEvent(this.lease, name, step, now,
                this.leaseUntil.get()));
        taken.ifPresent((event) -> this.history.put(step.apply(event)));
        return taken;
    }

    /** Reads an execution (a child, typically); a transport failure abandons the delivery. */
    Optional<ExecutionRow> find(String taskId) {
        try {
            return this.store.find(taskId);
        }
        catch (LeaseLostException | StoreUnavailableException ex) {
            throw this.stop.abandon(ex);
        }
    }

    private <T> T write(Supplier<T> write) {
        try {
            return write.get();
        }
        catch (LeaseLostException | StoreUnavailableException ex) {
            throw this.stop.abandon(ex);
        }
        catch (StoreStatementException ex) {
            throw this.stop.fatal(ex);
        }
    }
}
