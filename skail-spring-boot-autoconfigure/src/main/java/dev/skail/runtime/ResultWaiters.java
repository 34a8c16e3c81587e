package dev.skail.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import dev.skail.SkailExecution;
import dev.skail.SkailNotFoundException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The callers waiting for executions to end: futures by task id. Nobody polls per caller: the end of an execution is
 * signalled ({@link #ended}) by this process's worker when it ends one, and by the store's notifications when another
 * instance does (PostgreSQL); each signal costs one store read, and only for an id someone waits for, unless it
 * carries the execution as the store wrote it at its end (PostgreSQL, an end of this process). A waiter also
 * reads the store once when it starts waiting (unless its end is sure to be signalled here and it had not ended: a
 * delivery of it runs in this process, or this process created it and has heard no end of it since; see
 * {@link #await}), and all of them are read again every {@code recheck} as a safety net
 * (a lost notification, a store that was unreachable, an execution ended by a path that signals nothing).
 */
final class ResultWaiters implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(ResultWaiters.class);

    private final Map<String, Set<CompletableFuture<SkailExecution>>> waiting = new ConcurrentHashMap<>();

    private final Function<String, Optional<SkailExecution>> find;

    /** Executions told ended as the store wrote them, whose waiters are answered with that instead of a read. */
    private final Map<String, SkailExecution> told = new ConcurrentHashMap<>();

    /** The executions whose read for their waiters is queued and has not started. */
    private final Set<String> queuedChecks = ConcurrentHashMap.newKeySet();

    private final Supplier<AutoCloseable> listen;

    private final Predicate<String> signalledHere;

    /** Executions waited for by waits that read nothing as they started (see {@link #await}). */
    private final Set<String> unread = ConcurrentHashMap.newKeySet();

    private final Object lock = new Object();

    private volatile Duration recheck = Duration.ofSeconds(5);

    private @Nullable ScheduledThreadPoolExecutor executor;

    private volatile @Nullable AutoCloseable listener;

    private boolean closed;

    /**
     * @param find reads an execution from the store
     * @param listen starts listening for the ends other instances announce (it calls {@link #ended}); started on the
     * first wait
     */
    ResultWaiters(Function<String, Optional<SkailExecution>> find, Supplier<AutoCloseable> listen) {
        this(find, listen, (taskId) -> false);
    }

    /**
     * @param signalledHere whether the execution had not ended and its end is sure to be signalled here (a delivery of
     * it runs in this process now, or this process created it and has heard no end of it since; see {@link #await}):
     * a wait that starts then reads nothing
     */
    ResultWaiters(Function<String, Optional<SkailExecution>> find, Supplier<AutoCloseable> listen,
            Predicate<String> signalledHere) {
        this.find = find;
        this.listen = listen;
        this.signalledHere = signalledHere;
    }

    void setRecheck(Duration recheck) {
        this.recheck = recheck;
    }

    /**
     * A future completed with the execution once it has ended (exceptionally with {@link SkailNotFoundException} when
     * it does not exist). Cancelling it (or completing it) stops the waiting.
     */
    CompletableFuture<SkailExecution> await(String taskId) {
        CompletableFuture<SkailExecution> future = new CompletableFuture<>();
        // added in the map's own update: a waiter of the same id forgotten meanwhile cannot drop this one's set
        this.waiting.compute(taskId, (id, futures) -> {
            Set<CompletableFuture<SkailExecution>> all = (futures != null) ? futures : ConcurrentHashMap.newKeySet();
            all.add(future);
            return all;
        });
        future.whenComplete((execution, failure) -> forget(taskId, future));
        ScheduledThreadPoolExecutor started = start();
        if (started == null) {
            future.completeExceptionally(new IllegalStateException("The skail runtime has stopped"));
            return future;
        }
        // the store once, as the wait starts; not while a delivery of it runs here: that delivery signals its end, or,
        // ending otherwise, signals the waits that read nothing (deliveryEnded). It stops counting as running here
        // before either, and this wait is marked as unread before it looks: a wait that saw it running is seen by
        // the signal. Nor when this process created it and has heard no end of it since (on a store that announces
        // every end): the mark goes before the signal of an end, so a wait that saw it is seen by that signal
        this.unread.add(taskId);
        if (!this.signalledHere.test(taskId)) {
            this.unread.remove(taskId);
            checkSoon(started, taskId);
        }
        return future;
    }

    /**
     * Signals that the execution may have ended (or, with {@code null}, that any may have): the waiters for it read
     * the store once.
     */
    void ended(@Nullable String taskId) {
        if (taskId != null) {
            this.unread.remove(taskId);
        }
        ScheduledThreadPoolExecutor running = this.executor;
        if (running == null) {
            return;
        }
        if (taskId == null) {
            running.execute(this::checkAll);
        }
        else if (this.waiting.containsKey(taskId)) {
            try {
                checkSoon(running, taskId);
            }
            catch (RuntimeException ex) {
                // stopped
            }
        }
    }

    /**
     * Signals that the execution has ended as {@code execution} (what the store wrote at its end, read from it
     * nowhere else): its waiters are completed with it, without a read.
     */
    void ended(String taskId, SkailExecution execution) {
        this.unread.remove(taskId);
        ScheduledThreadPoolExecutor running = this.executor;
        if (running == null || !this.waiting.containsKey(taskId)) {
            return;
        }
        if (!execution.status().isTerminal()) {
            ended(taskId);
            return;
        }
        // answered as a read is, on the registry's threads (what callers chained to their futures never runs on the
        // thread that ended the execution, a worker's), by the read queued for it, or one queued now: either takes
        // the execution told instead of reading, and a signal of the same end meanwhile (the store's notification)
        // queues nothing more
        this.told.put(taskId, execution);
        try {
            checkSoon(running, taskId);
        }
        catch (RuntimeException ex) {
            this.told.remove(taskId, execution);
            // stopped: the waiters are failed by close
        }
    }

    /**
     * A delivery of the execution has ended here without signalling its end (it has stopped counting as delivered
     * here): the waits that read nothing as they started, because it ran, read the store once now.
     */
    void deliveryEnded(String taskId) {
        if (this.unread.remove(taskId)) {
            ended(taskId);
        }
    }

    /**
     * Whether this registry hears every end announced now: it started listening, and the store's listener
     * ({@link dev.skail.platform.ExecutionStore.Listening}) listens; when that starts again after a break, a
     * {@code null} signal reaches {@link #ended} first.
     */
    boolean listening() {
        return (this.listener instanceof dev.skail.platform.ExecutionStore.Listening listens) && listens.listening();
    }

    /** Whether someone waits for the execution. */
    boolean waitsFor(String taskId) {
        return this.waiting.containsKey(taskId);
    }

    /**
     * Reads the execution for its waiters on {@code executor}, unless a read of it is queued there already and has not
     * started: that one reads what this one would (an end signalled twice, by this process and by the store's
     * notification, is read once). A read that has started reads again after it.
     */
    private void checkSoon(ScheduledThreadPoolExecutor executor, String taskId) {
        if (!this.queuedChecks.add(taskId)) {
            return;
        }
        try {
            executor.execute(() -> {
                this.queuedChecks.remove(taskId);
                check(taskId);
            });
        }
        catch (RuntimeException ex) {
            this.queuedChecks.remove(taskId);
            throw ex;
        }
    }

    /** Whether a read of the execution for its waiters is queued and has not started (tests). */
    boolean readQueued(String taskId) {
        return this.queuedChecks.contains(taskId);
    }

    /** How many ids are waited for (tests, metrics). */
    int waitedFor() {
        return this.waiting.size();
    }

    private @Nullable ScheduledThreadPoolExecutor start() {
        synchronized (this.lock) {
            if (this.closed) {
                return null;
            }
            if (this.executor == null) {
                CustomizableThreadFactory threads = new CustomizableThreadFactory("skail-results-");
                threads.setDaemon(true);
                ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(2, threads);
                executor.setRemoveOnCancelPolicy(true);
                long every = Math.max(1, this.recheck.toMillis());
                executor.scheduleWithFixedDelay(this::checkAll, every, every, TimeUnit.MILLISECONDS);
                this.executor = executor;
                try {
                    this.listener = this.listen.get();
                }
                catch (RuntimeException ex) {
                    logger.warn("skail cannot listen for ended executions (" + ex.getMessage() + "); waiters read "
                            + "the store every " + this.recheck.toMillis() + " ms");
                }
            }
            return this.executor;
        }
    }

    private void checkAll() {
        for (String taskId : this.waiting.keySet()) {
            check(taskId);
        }
    }

    private void check(String taskId) {
        SkailExecution told = this.told.remove(taskId);
        Set<CompletableFuture<SkailExecution>> futures = this.waiting.get(taskId);
        if (futures == null || futures.isEmpty()) {
            return;
        }
        Optional<SkailExecution> found;
        try {
            found = (told != null) ? Optional.of(told) : this.find.apply(taskId);
        }
        catch (RuntimeException ex) {
            // the store cannot be reached: the next signal or the timer reads it again
            logger.debug("skail could not read execution '" + taskId + "' for its waiters: " + ex.getMessage());
            return;
        }
        if (found.isEmpty()) {
            SkailNotFoundException missing = new SkailNotFoundException("Unknown execution '" + taskId + "'");
            for (CompletableFuture<SkailExecution> future : futures) {
                future.completeExceptionally(missing);
            }
        }
        else if (found.get().status().isTerminal()) {
            for (CompletableFuture<SkailExecution> future : futures) {
                future.complete(found.get());
            }
        }
    }

    private void forget(String taskId, CompletableFuture<SkailExecution> future) {
        this.waiting.computeIfPresent(taskId, (id, futures) -> {
            futures.remove(future);
            if (futures.isEmpty()) {
                // nobody waits any more: no mark is left behind (a new wait marks itself after its own update)
                this.unread.remove(id);
                return null;
            }
            return futures;
        });
    }

    @Override
    public void close() {
        ScheduledThreadPoolExecutor executor;
        AutoCloseable listener;
        synchronized (this.lock) {
            this.closed = true;
            this.unread.clear();
            this.told.clear();
            executor = this.executor;
            listener = this.listener;
            this.executor = null;
            this.listener = null;
        }
        if (listener != null) {
            try {
                listener.close();
            }
            catch (Exception ex) {
                logger.debug("skail could not stop listening for ended executions", ex);
            }
        }
        if (executor != null) {
            executor.shutdownNow();
        }
        IllegalStateException stopped = new IllegalStateException("The skail runtime has stopped");
        for (Set<CompletableFuture<SkailExecution>> futures : this.waiting.values()) {
            for (CompletableFuture<SkailExecution> future : futures) {
                future.completeExceptionally(stopped);
            }
        }
    }
}
