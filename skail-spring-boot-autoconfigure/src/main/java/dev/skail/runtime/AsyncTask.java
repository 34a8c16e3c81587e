package dev.skail.runtime;

import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

import dev.skail.SkailTask;
import org.jspecify.annotations.Nullable;

/** A step started with {@code Skail.async}, or, outside an execution, a step that ran at once. */
final class AsyncTask<T> implements SkailTask<T> {

    private static final Object SETTLED = new Object();

    private final @Nullable Delivery delivery;

    private final CountDownLatch done = new CountDownLatch(1);

    private volatile @Nullable T value;

    private volatile @Nullable Throwable failure;

    private volatile boolean suspended;

    private volatile int order;

    AsyncTask(@Nullable Delivery delivery) {
        this.delivery = delivery;
    }

    /** Outside an execution: the step runs at once. */
    static <T> SkailTask<T> completed(Supplier<T> supplier) {
        AsyncTask<T> task = new AsyncTask<>(null);
        try {
            task.settle(supplier.get(), null, false, 0);
        }
        catch (RuntimeException | Error ex) {
            task.settle(null, ex, false, 0);
        }
        return task;
    }

    void settle(@Nullable T value, @Nullable Throwable failure, boolean suspended, int order) {
        this.value = value;
        this.failure = failure;
        this.suspended = suspended;
        this.order = order;
        this.done.countDown();
        synchronized (SETTLED) {
            SETTLED.notifyAll();
        }
    }

    /** The step never ran (the runtime stopped first): the delivery is abandoned, nothing is counted. */
    void abandon() {
        if (this.delivery != null) {
            this.delivery.stop.abandon(new IllegalStateException("the runtime stopped before an async step ran"));
        }
        settle(null, null, true, 0);
    }

    @Nullable Throwable failure() {
        return this.failure;
    }

    boolean suspended() {
        return this.suspended;
    }

    void join() {
        try {
            this.done.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw interrupted(this.delivery);
        }
    }

    /** An interrupt (the runtime stopping) abandons the delivery: it is not an attempt of anything. */
    static Suspension interrupted(@Nullable Delivery delivery) {
        IllegalStateException cause = new IllegalStateException("interrupted while waiting for async steps");
        return (delivery != null) ? delivery.stop.abandon(cause) : new Suspension(cause.getMessage());
    }

    @Override
    public T await() {
        join();
        if (this.suspended) {
            Suspension suspension = new Suspension("an async step is waiting for a redelivery");
            throw (this.delivery != null) ? this.delivery.intoFunction(suspension) : suspension;
        }
        Throwable failure = this.failure;
        if (failure != null) {
            if (this.delivery != null) {
                this.delivery.seen(failure);
            }
            throw AsyncTask.<RuntimeException>sneaky(failure);
        }
        return this.value;
    }

    @Override
    public boolean isDone() {
        return this.done.getCount() == 0;
    }

    /** The first of the tasks that is done, in the order they ended (argument order outside an execution). */
    static AsyncTask<?> firstSettled(SkailTask<?>... tasks) {
        synchronized (SETTLED) {
            while (true) {
                AsyncTask<?> first = null;
                for (SkailTask<?> task : tasks) {
                    AsyncTask<?> candidate = (AsyncTask<?>) task;
                    if (candidate.isDone() && (first == null || candidate.order < first.order)) {
                        first = candidate;
                    }
                }
                if (first != null) {
                    return first;
                }
                try {
                    SETTLED.wait(100);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw interrupted((tasks.length > 0) ? ((AsyncTask<?>) tasks[0]).delivery : null);
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable failure) throws E {
        throw (E) failure;
    }
}
