package dev.skail.runtime;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.skail.SkailTask;
import dev.skail.platform.StepRow;

/**
 * Steps started with {@code Skail.async} (S8): each gets its position when {@code async} is called, so replay is
 * deterministic whatever order they end in; a recorded one replays at once on the function's thread, a new one runs
 * on a thread of the runtime's bounded pool. {@code whenAny} records which task ended first.
 */
final class ParallelSteps {

    private final Delivery delivery;

    private final List<AsyncTask<?>> branches = new CopyOnWriteArrayList<>();

    private final AtomicInteger settleOrder = new AtomicInteger();

    ParallelSteps(Delivery delivery) {
        this.delivery = delivery;
    }

    <T> SkailTask<T> async(Supplier<T> supplier) {
        if (this.delivery.frame().branchPosition >= 0) {
            throw this.delivery.usage("Skail.async was called inside an async step: start steps from the function "
                    + "itself");
        }
        this.delivery.checkRunnable();
        int position = this.delivery.next();
        AsyncTask<T> task = new AsyncTask<>(this.delivery);
        this.branches.add(task);
        StepRow recorded = this.delivery.history.at(position);
        if (recorded != null && !StepRow.PENDING.equals(recorded.status())) {
            // recorded: replays at once on this thread, without running anything
            run(task, supplier, position);
            return task;
        }
        try {
            this.delivery.runtime.asyncExecutor().execute(new Branch(task, () -> {
                this.delivery.bind();
                Logs.delivery(this.delivery.taskId(), this.delivery.functionName());
                try {
                    run(task, supplier, position);
                }
                finally {
                    Logs.clear();
                    this.delivery.unbind();
                }
            }));
        }
        catch (RejectedExecutionException ex) {
            // the runtime is stopping: nothing of this step ran
            task.settle(null, null, true, 0);
            throw this.delivery.stop.abandon(new IllegalStateException("the runtime is shutting down", ex));
        }
        return task;
    }

    private <T> void run(AsyncTask<T> task, Supplier<T> supplier, int position) {
        Delivery.Frame frame = this.delivery.frame();
        int previous = frame.branchPosition;
        frame.branchPosition = position;
        frame.branchUsed = false;
        try {
            T value = supplier.get();
            if (!frame.branchUsed) {
                throw this.delivery.usage("The supplier given to Skail.async must call one @SkailCommand or "
                        + "@SkailFunction");
            }
            task.settle(value, null, false, this.settleOrder.incrementAndGet());
        }
        catch (Suspension ex) {
            task.settle(null, null, true, this.settleOrder.incrementAndGet());
        }
        catch (Throwable ex) {
            task.settle(null, ex, false, this.settleOrder.incrementAndGet());
        }
        finally {
            frame.branchPosition = previous;
            frame.branchUsed = false;
        }
    }

    /** Which of the tasks ended first, recorded. */
    SkailTask<?> whenAny(SkailTask<?>... tasks) {
        if (tasks.length == 0) {
            throw new IllegalArgumentException("Skail.whenAny needs at least one task");
        }
        this.delivery.checkRunnable();
        int position = this.delivery.position();
        String arguments = "[" + tasks.length + "]";
        StepRow recorded = this.delivery.expect(position, StepRow.WHEN_ANY, "whenAny", arguments, "Skail.whenAny");
        if (recorded != null) {
            AsyncTask<?> first = (AsyncTask<?>) tasks[Integer.parseInt(Objects.requireNonNull(recorded.result()))];
            first.join();
            chosen(first, position);
            return first;
        }
        this.delivery.requireRecording(position, "whenAny");
        AsyncTask<?> first = AsyncTask.firstSettled(tasks);
        this.delivery.checkRunnable();
        if (first.suspended()) {
            throw this.delivery.stop.again();
        }
        int index = List.of(tasks).indexOf(first);
        long now = this.delivery.millis();
        StepRow step = new StepRow(this.delivery.taskId(), position, StepRow.WHEN_ANY, "whenAny", arguments,
                StepRow.COMPLETED, Integer.toString(index), null, this.delivery.key(position),
                this.delivery.execution.attempt(), now, now, null);
        this.delivery.writer.step(step, null, now);
        chosen(first, position);
        return first;
    }

    /** A failed task chosen by {@code whenAny}: the function saw its failure there, and took a path on it. */
    private void chosen(AsyncTask<?> first, int position) {
        Throwable failure = first.failure();
        if (failure != null) {
            this.delivery.history.seen(failure, position);
        }
    }

    /** Waits for the async steps still running, so that the delivery ends only when they have recorded. */
    void awaitBranches() {
        for (AsyncTask<?> task : this.branches) {
            task.join();
        }
    }

    /** Waits for every task; throws the first failure in argument order. */
    static void whenAll(SkailTask<?>... tasks) {
        for (SkailTask<?> task : tasks) {
            if (task instanceof AsyncTask<?> branch) {
                branch.join();
            }
        }
        for (SkailTask<?> task : tasks) {
            task.await();
        }
    }

    /** An async step waiting for a thread of the pool; discarded at shutdown, it abandons its delivery. */
    static final class Branch implements Runnable {

        private final AsyncTask<?> task;

        private final Runnable body;

        Branch(AsyncTask<?> task, Runnable body) {
            this.task = task;
            this.body = body;
        }

        @Override
        public void run() {
            this.body.run();
        }

        /** The runtime stops before this step ran: the delivery is abandoned, and whoever waits for it goes on. */
        void discard() {
            this.task.abandon();
        }
    }
}
