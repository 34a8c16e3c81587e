package dev.skail.runtime;

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

    HistoryWriter(ExecutionStore store, Lease lease, History history, Stop stop, Supplier<Long> leaseUntil) {
        this.store = store;
        this.lease = lease;
        this.history = history;
        this.stop = stop;
        this.leaseUntil = leaseUntil;
    }

    /** Records a step (inserted, or completing the PENDING step at its position), with its attempt if any. */
    void step(StepRow step, @Nullable AttemptRow attempt, long now) {
        write(() -> {
            this.store.recordStep(this.lease, step, attempt, now, this.leaseUntil.get());
            return null;
        });
        this.history.put(step);
    }

    /** Records the step where the function sees its cancellation, in place of a PENDING step at its position. */
    void cancel(StepRow step, long now) {
        write(() -> {
            this.store.recordCancel(this.lease, step, now, this.leaseUntil.get());
            return null;
        });
        this.history.put(step);
    }

    /** Records an attempt of a step that has no outcome yet. */
    void attempt(AttemptRow attempt, long now) {
        write(() -> {
            this.store.recordAttempt(this.lease, attempt, now, this.leaseUntil.get());
            return null;
        });
    }

    /** Creates the child execution, with its tags, and records the parent's PENDING step that started it. */
    void startChild(StepRow pending, ExecutionRow child, List<Tag> childTags, long now) {
        write(() -> {
            this.store.startChild(this.lease, pending, child, childTags, now, this.leaseUntil.get());
            return null;
        });
        this.history.put(pending);
    }

    /** Tags the execution, unless the store has that tag already. */
    void tag(Tag tag, long now) {
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
