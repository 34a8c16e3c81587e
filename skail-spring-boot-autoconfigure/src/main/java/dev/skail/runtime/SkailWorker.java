package dev.skail.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.StoreDeadline;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * Finds due executions and runs them, on threads of its own: a poller claims what is due (no
 * {@code @EnableScheduling} needed), a pool of {@code concurrency} threads runs deliveries, and a heartbeat
 * renews the leases of the executions running (the poller also gives back the leases of triggers that failed, see
 * {@link #releaseSoon}). Each execution is run by one thread at a time (S14): the lease is
 * the guard across instances and this worker never runs an execution it is already running. Stopping stops the
 * poller, lets running deliveries finish up to a timeout, and gives back the leases it still holds.
 */
public class SkailWorker implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(SkailWorker.class);

    private final SkailRuntime runtime;

    private final ExecutionStore store;

    private final Clock clock;

    private final int concurrency;

    /**
     * How many executions beyond its free threads a claim may take while a backlog waits in the store (the last claim
     * filled every slot it asked for). They wait in this worker's queue, leased and renewed like running ones, and a
     * thread that ends a delivery takes the next at once instead of waiting for the poller's next claim.
     */
    private final int prefetch;

    private final Duration pollInterval;

    private final Duration shutdownTimeout;

    private final Map<String, Lease> running = new ConcurrentHashMap<>();

    private final AtomicInteger busy = new AtomicInteger();

    private final AtomicBoolean pollPending = new AtomicBoolean();

    /** Whether a poll runs (for {@link #quiet}: a poll clears {@link #pollPending} before it opens its claim). */
    private volatile boolean polling;

    /** Open while a poll holds the free slots for its claim; {@link #reserve} may wait for it. */
    private volatile CountDownLatch claiming = new CountDownLatch(0);

    /**
     * Triggers waiting in {@link #reserve} for a claim to end: a poll leaves them a slot each, so that the next poll
     * (asked for meanwhile by an ended delivery or another instance's notification, and run by the poller at once)
     * does not take the slot the claim gave back before the waiting trigger's thread is scheduled.
     */
    private final AtomicInteger triggersWaiting = new AtomicInteger();

    /**
     * Whether the last claim found less due work than it had slots for: no work is waiting in the store, and a trigger
     * during the next claim is worth a wait (see {@link #reserve}). Under a backlog, claims fill their slots, and a
     * trigger that finds none free leaves its execution to its turn at once.
     */
    private volatile boolean drained = true;

    /**
     * Whether a poll found no slot free for its claim: the next delivery to end polls again, since the work that poll
     * was asked for may wait in the store. A delivery reads it after giving its slot back, and a poll re-reads the slots
     * after setting it, so one of the two always sees the other. Cleared by a poll that claims.
     */
    private volatile boolean missed;

    /**
     * How long a trigger that finds every slot taken by a poll's claim waits for the claim to end: a claim on an idle
     * runtime finds nothing and gives its slots back within a millisecond or two, and the trigger then runs its
     * execution at once; when the claim fills the slots (work was waiting), the trigger's execution waits its turn.
     */
    private volatile Duration claimWait = Duration.ofMillis(50);

    private volatile @Nullable ThreadPoolExecutor executor;

    private volatile @Nullable ScheduledExecutorService scheduler;

    private volatile @Nullable ScheduledExecutorService heartbeat;

    private volatile boolean started;

    private volatile @Nullable AutoCloseable dueListener;

    private volatile @Nullable Throwable lastPollFailure;

    /** Leases to give back on the poller's thread ({@link #releaseSoon}), at most {@link #MAX_PENDING_RELEASES}. */
    private final Set<Lease> toRelease = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean releasePending = new AtomicBoolean();

    /** How many leases {@link #releaseSoon} keeps to give back; past that, they expire on their own. */
    static final int MAX_PENDING_RELEASES = 1024;

    /** The largest {@code skail.worker.prefetch}: executions held in the queue, each a lease renewed. */
    static final int MAX_PREFETCH = 10_000;

    /** Leases the store said another runner holds now: a delivery still queued with one of them never starts. */
    private final Set<Lease> lost = ConcurrentHashMap.newKeySet();

    /**
     * How long the poller may spend giving back the leases {@link #releaseSoon} was handed, in one go; those it could
     * not give back in that time expire on their own.
     */
    static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(2);

    public SkailWorker(SkailRuntime runtime, ExecutionStore store, Clock clock, int concurrency, Duration pollInterval,
            Duration shutdownTimeout) {
        this(runtime, store, clock, concurrency, 0, pollInterval, shutdownTimeout);
    }

    /**
     * @param prefetch how many due executions a claim may take beyond the free threads while a backlog waits in the
     * store (0: none); they wait in this worker's queue, their leases renewed, and run as threads come free
     */
    public SkailWorker(SkailRuntime runtime, ExecutionStore store, Clock clock, int concurrency, int prefetch,
            Duration pollInterval, Duration shutdownTimeout) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("skail.worker.concurrency must be at least 1, not " + concurrency);
        }
        if (prefetch < 0 || prefetch > MAX_PREFETCH) {
            throw new IllegalArgumentException("skail.worker.prefetch must be between 0 and " + MAX_PREFETCH
                    + ", not " + prefetch);
        }
        this.runtime = runtime;
        this.store = store;
        this.clock = clock;
        this.concurrency = concurrency;
        this.prefetch = prefetch;
        this.pollInterval = pollInterval;
        this.shutdownTimeout = shutdownTimeout;
    }

    @Override
    public void start() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(this.concurrency, this.concurrency, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), threads("skail-worker-"));
        ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(threads("skail-poller-"));
        // a fixed set of threads from the start: the load never changes how many threads skail holds. They are started
        // by the poller, first of all it does, not by the thread that starts the application (32 threads on H2 by
        // default: ~15 ms of its start-up); a delivery handed over meanwhile starts the thread it needs itself
        poller.execute(() -> {
            try {
                pool.prestartAllCoreThreads();
            }
            catch (RuntimeException | Error ex) {
                // no thread to be had (the process's limit): each delivery still tries to start the one it needs
                logger.warn("skail worker could not start its threads: " + ex);
            }
        });
        // leases are renewed on a thread of their own: a poll waiting on the store never delays a renewal
        ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor(threads("skail-lease-"));
        this.executor = pool;
        this.scheduler = poller;
        this.heartbeat = renewer;
        // a poll or a release queued when the worker last stopped was thrown away with its thread: none is pending
        this.pollPending.set(false);
        this.releasePending.set(false);
        this.runtime.stopping(false);
        this.runtime.onNewWork(this::nudge);
        this.runtime.onLocalStart(this);
        this.started = true;
        // other instances' triggers, events and ended children wake this worker too (PostgreSQL's notifications)
        this.dueListener = this.store.onDue(this.runtime.settings().workload(), this.runtime.settings().version(),
                this::nudge);
        long poll = Math.max(1, this.pollInterval.toMillis());
        poller.scheduleWithFixedDelay(this::poll, 0, poll, TimeUnit.MILLISECONDS);
        long heartbeat = Math.max(1, this.runtime.settings().leaseDuration().toMillis() / 3);
        renewer.scheduleWithFixedDelay(this::renewLeases, heartbeat, heartbeat, TimeUnit.MILLISECONDS);
        logger.info("skail worker started for " + this.runtime.settings().workload() + ":"
                + this.runtime.settings().version() + " (concurrency " + this.concurrency + ", prefetch "
                + this.prefetch + ", poll every "
                + this.pollInterval.toMillis() + " ms)");
    }

    /** Polls at once, e.g. after a trigger in this process, instead of waiting for the next poll. */
    public void nudge() {
        ScheduledExecutorService poller = this.scheduler;
        // one pending poll is enough, however many triggers and ended deliveries ask for it
        if (this.started && poller != null && this.pollPending.compareAndSet(false, true)) {
            try {
                poller.execute(this::poll);
            }
            catch (RuntimeException ex) {
                this.pollPending.set(false);
            }
        }
    }

    void poll() {
        this.polling = true;
        try {
            pollOnce();
        }
        finally {
            this.polling = false;
        }
    }

    private void pollOnce() {
        this.pollPending.set(false);
        if (!this.started) {
            return;
        }
        // under a backlog (the last claim filled its slots) a claim also takes work for the threads that come free
        // while the next claim waits for the store: on the embedded store a claim rides the group commit's next batch
        int capacity = this.drained ? this.concurrency : this.concurrency + this.prefetch;
        if (this.busy.get() >= capacity) {
            this.missed = true;
            if (this.busy.get() >= capacity) {
                return;
            }
        }
        // the free slots are taken before the claim, so that triggers handing executions over meanwhile never make
        // this worker run more than its concurrency; such a trigger may wait for the claim to end (reserve)
        CountDownLatch claim = new CountDownLatch(1);
        this.claiming = claim;
        int free = takeFreeSlots(capacity - this.triggersWaiting.get());
        if (free <= 0) {
            this.missed = true;
            free = takeFreeSlots(capacity - this.triggersWaiting.get());
            if (free <= 0) {
                claim.countDown();
                return;
            }
        }
        // this claim reads the store after the mark is cleared: what it was asked for, it finds
        this.missed = false;
        int started = 0;
        boolean filled = false;
        try {
            long now = this.clock.millis();
            // an execution with no step, attempt or event yet comes with its history, told by the claim (no read then)
            List<ExecutionStore.Claimed> claimed = this.store.claimDueWithHistory(this.runtime.settings().workload(),
                    this.runtime.settings().version(), this.runtime.settings().instanceId(), free, now,
                    this.runtime.leaseUntil(), Set.copyOf(this.running.keySet()));
            this.drained = claimed.size() < free;
            filled = !this.drained;
            for (ExecutionStore.Claimed one : claimed) {
                started++;
                startReserved(one.lease(), one.history());
            }
            this.lastPollFailure = null;
        }
        catch (RuntimeException ex) {
            // a store that fails claims will fail triggers as well: they do not wait for the next claim
            this.drained = false;
            if (this.lastPollFailure == null) {
                logger.warn("skail worker could not poll the store: " + ex.getMessage());
            }
            this.lastPollFailure = ex;
        }
        finally {
            this.busy.addAndGet(-(free - started));
            claim.countDown();
        }
        // work waits, and a delivery that ended during the claim read the backlog's mark before the claim set it:
        // the slot it freed is claimed for now (the mark is written before the slots are read, as above)
        if (filled && this.busy.get() < capacity) {
            nudge();
        }
    }

    /**
     * Takes every free slot at once, up to {@code capacity} in all; each is given back by the delivery that uses it, or
     * by the caller. The pool's threads, {@code concurrency} of them, still bound what runs at once: a delivery of a
     * slot beyond them waits in the pool's queue.
     */
    private int takeFreeSlots(int capacity) {
        while (true) {
            int busy = this.busy.get();
            int free = capacity - busy;
            if (free <= 0) {
                return 0;
            }
            if (this.busy.compareAndSet(busy, capacity)) {
                return free;
            }
        }
    }

    /**
     * Takes a free slot for an execution a trigger of this process is about to create claimed: then the trigger hands
     * it over with {@link #startReserved}, or gives the slot back with {@link #unreserve}. When a poll holds the free
     * slots for its claim and the claim before it drained the store, waits for the claim to end (at most
     * {@link #claimWait}, so a claim kept waiting by the store never holds a trigger up): on an idle runtime the claim
     * finds nothing, and the trigger's execution still runs at once. A poll that starts while a trigger waits (asked for
     * by an ended delivery or another instance's notification) leaves the waiting trigger a slot: the poller would
     * otherwise take the slot the claim gave back before the trigger's thread is scheduled. Work the claim finds goes
     * first; under a backlog (the last claim filled its slots) the trigger does not wait, and its execution waits its
     * turn in the store.
     * @return whether a slot was free (never while stopping)
     */
    boolean reserve() {
        if (tryReserve()) {
            return true;
        }
        if (!this.drained) {
            return false;
        }
        long wait = this.claimWait.toMillis();
        if (StoreDeadline.isSet()) {
            // the caller's request deadline (skail.store.request-timeout) bounds the wait too
            wait = Math.min(wait, StoreDeadline.remainingMillis());
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(0, wait));
        // counted before a claim is read: a poll that starts from now on leaves this trigger a slot, and one that
        // started before has opened its latch (before taking any slot), which this trigger then waits for
        this.triggersWaiting.incrementAndGet();
        try {
            while (true) {
                CountDownLatch claim = this.claiming;
                boolean claimOpen = claim.getCount() > 0;
                if (!this.drained || !this.started || this.runtime.isStopping()) {
                    return false;
                }
                if (tryReserve()) {
                    return true;
                }
                if (!claimOpen) {
                    if (this.claiming == claim) {
                        // no claim held a slot when this one was refused: every slot is held by a running execution
                        return false;
                    }
                    // a claim started meanwhile and may hold the slots: wait for it
                    continue;
                }
                // wait for the claim, then try again: a claim that ended gave its slots back, and the next poll,
                // whether it started or not, leaves this trigger one
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0 || !claim.await(remaining, TimeUnit.NANOSECONDS)) {
                    return false;
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
        finally {
            this.triggersWaiting.decrementAndGet();
        }
    }

    private boolean tryReserve() {
        while (this.started && !this.runtime.isStopping()) {
            int busy = this.busy.get();
            if (busy >= this.concurrency) {
                return false;
            }
            if (this.busy.compareAndSet(busy, busy + 1)) {
                return true;
            }
        }
        return false;
    }

    /** For tests: whether no poll is asked for or runs, and no slot is taken. */
    boolean quiet() {
        return !this.pollPending.get() && !this.polling && this.claiming.getCount() == 0 && this.busy.get() == 0;
    }

    /** For tests: the slots taken, by running executions and by a poll's claim (see {@link #takeFreeSlots}). */
    int slotsTaken() {
        return this.busy.get();
    }

    /** For tests: whether the last claim drained the store (see {@link #reserve}). */
    boolean drained() {
        return this.drained;
    }

    /** For tests: how long {@link #reserve} waits for a poll's claim. */
    void claimWait(Duration wait) {
        this.claimWait = wait;
    }

    /** Gives back a slot {@link #reserve} took and no execution used. */
    void unreserve() {
        this.busy.decrementAndGet();
        if (this.missed) {
            // a poll found this slot held for the trigger: it is free again for the work that poll was asked for
            nudge();
        }
    }

    /**
     * Runs a claimed execution in a slot taken for it ({@link #reserve}, or a poll's): no poll, no claim. When it
     * cannot run here (the worker stopped; it still runs here under an older lease that expired), the slot and the
     * lease are given back.
     * @param known its history when known without reading it (an execution a trigger has just created claimed)
     */
    void startReserved(Lease lease, @Nullable StoredHistory known) {
        ThreadPoolExecutor pool = this.executor;
        if (pool == null || this.running.putIfAbsent(lease.taskId(), lease) != null) {
            unreserve();
            releaseQuietly(lease);
            // given back, it is due at once
            nudge();
            return;
        }
        try {
            pool.execute(new QueuedDelivery(lease, known));
        }
        catch (RuntimeException ex) {
            unreserve();
            this.running.remove(lease.taskId(), lease);
            releaseQuietly(lease);
            nudge();
        }
    }

    /**
     * Gives back, soon and on the poller's thread, a lease whose execution may exist although its creation failed (a
     * trigger that created it claimed and was not told the commit held: a deadline, a sync that failed). The trigger
     * answers its caller at once rather than wait for a store that has just failed it once more; a lease that cannot be
     * given back within {@link #RELEASE_TIMEOUT} (the store is away, or slow) expires on its own. Not on the lease
     * thread: a release waiting on the store must not delay a renewal. The release is fenced by the lease's token
     * (see {@link ExecutionStore#release}): an execution that was never created, or that someone else holds, is left
     * alone.
     */
    void releaseSoon(Lease lease) {
        ScheduledExecutorService poller = this.scheduler;
        if (poller == null || !this.started || this.toRelease.size() >= MAX_PENDING_RELEASES) {
            logger.info("skail could not give back the lease on '" + lease.taskId() + "' now; it expires on its own");
            return;
        }
        this.toRelease.add(lease);
        if (this.releasePending.compareAndSet(false, true)) {
            try {
                poller.execute(this::releasePending);
            }
            catch (RejectedExecutionException ex) {
                // stopping: stop() gives back what is queued
                this.releasePending.set(false);
            }
        }
    }

    private void releasePending() {
        this.releasePending.set(false);
        List<Lease> leases = List.copyOf(this.toRelease);
        this.toRelease.removeAll(leases);
        if (release(leases)) {
            // an execution whose commit held (if any did) is due now: run it here rather than at the next poll
            nudge();
        }
    }

    /**
     * Gives leases back within {@link #RELEASE_TIMEOUT} in all; when the store is away (or the time is spent), the
     * rest are not tried: they would wait as well, and expire on their own.
     * @return whether any was given back
     */
    private boolean release(List<Lease> leases) {
        if (leases.isEmpty()) {
            return false;
        }
        return StoreDeadline.within(RELEASE_TIMEOUT, () -> {
            boolean any = false;
            for (int i = 0; i < leases.size(); i++) {
                Lease lease = leases.get(i);
                try {
                    this.store.release(lease, this.clock.millis());
                    any = true;
                }
                catch (StoreUnavailableException ex) {
                    int dropped = leases.size() - i - 1;
                    logger.info("skail could not give back the lease on '" + lease.taskId() + "'"
                            + ((dropped > 0) ? " and " + dropped + " other(s)" : "") + " (" + ex.getMessage()
                            + "); they expire on their own");
                    break;
                }
                catch (RuntimeException ex) {
                    logger.debug("skail could not give back the lease on '" + lease.taskId() + "'", ex);
                }
            }
            return any;
        });
    }

    private void releaseQuietly(Lease lease) {
        try {
            this.store.release(lease, this.clock.millis());
        }
        catch (RuntimeException ex) {
            // the lease expires on its own
        }
    }

    /**
     * Gives back the slots and leases of deliveries the pool never started (the worker stopped), and forgets them: a
     * start after this stop claims them again rather than skip them as running.
     */
    private void giveBack(List<Runnable> neverStarted) {
        List<Lease> leases = new ArrayList<>();
        for (Runnable delivery : neverStarted) {
            if (delivery instanceof QueuedDelivery queued) {
                this.busy.decrementAndGet();
                this.running.remove(queued.lease.taskId(), queued.lease);
                leases.add(queued.lease);
            }
        }
        release(leases);
    }

    /** A delivery handed to the pool; one the pool never started (the worker stopped) is given back by its lease. */
    private final class QueuedDelivery implements Runnable {

        final Lease lease;

        final @Nullable StoredHistory known;

        final long queuedNanos = System.nanoTime();

        QueuedDelivery(Lease lease, @Nullable StoredHistory known) {
            this.lease = lease;
            this.known = known;
        }

        @Override
        public void run() {
            SkailWorker.this.run(this.lease, this.known, this.queuedNanos);
        }
    }

    /**
     * @param knownNanos when {@code known} was known: a cancel requested while the delivery waited in the queue is
     * asked of the store at its first step when that was a second or more ago
     */
    private void run(Lease lease, @Nullable StoredHistory known, long knownNanos) {
        boolean quiet = false;
        try {
            if (this.lost.remove(lease)) {
                logger.info("skail did not start '" + lease.taskId() + "': another runner holds it now");
            }
            else if (known != null) {
                quiet = this.runtime.deliver(lease, known, knownNanos);
            }
            else {
                quiet = this.runtime.deliver(lease);
            }
        }
        catch (RuntimeException | Error ex) {
            logger.error("skail delivery of '" + lease.taskId() + "' ended unexpectedly", ex);
        }
        finally {
            this.running.remove(lease.taskId(), lease);
            this.lost.remove(lease);
            this.busy.decrementAndGet();
            // the slot it frees is claimed for when work may wait: a backlog (the last claim filled its slots, or
            // failed), a poll that found no slot, or work this delivery's end made due. Otherwise a claim would find
            // nothing (every other arrival of work asks for its own poll), and would hold up the next trigger here
            // (reserve waits for a claim that holds the slots)
            if (!quiet || this.missed || !this.drained) {
                nudge();
            }
        }
    }

    private void renewLeases() {
        List<Lease> held = new ArrayList<>(this.running.values());
        if (held.isEmpty()) {
            return;
        }
        try {
            for (Lease lost : this.store.renew(held, this.clock.millis(), this.runtime.leaseUntil())) {
                logger.warn("skail lost the lease on execution '" + lost.taskId() + "'; its writes will be refused");
                if (lost.equals(this.running.get(lost.taskId()))) {
                    // a delivery still queued (claimed ahead) then never starts: its first command would run
                    // before its first write is refused
                    this.lost.add(lost);
                }
            }
        }
        catch (RuntimeException ex) {
            logger.warn("skail could not renew leases: " + ex.getMessage());
        }
    }

    @Override
    public void stop() {
        if (!this.started) {
            return;
        }
        this.started = false;
        this.runtime.stopping(true);
        AutoCloseable listener = this.dueListener;
        if (listener != null) {
            try {
                listener.close();
            }
            catch (Exception ex) {
                logger.debug("skail worker: could not stop listening for due work", ex);
            }
        }
        ScheduledExecutorService poller = this.scheduler;
        ThreadPoolExecutor pool = this.executor;
        if (poller != null) {
            poller.shutdownNow();
        }
        if (pool != null) {
            // deliveries not started yet never start: their leases are given back below; running ones stop at their
            // next step boundary (the runtime is stopping), so the wait is the length of one step, not a function
            List<Runnable> queued = new ArrayList<>();
            pool.getQueue().drainTo(queued);
            // given back at once (claimed ahead under a backlog, there may be several): another instance may run them
            // while the running deliveries here reach their step boundary
            giveBack(queued);
            pool.shutdown();
            try {
                if (!pool.awaitTermination(this.shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    logger.warn("skail worker: deliveries still running after " + this.shutdownTimeout
                            + "; interrupting them");
                    // a poll or a trigger that handed a delivery over while the queue was emptied: it never starts
                    giveBack(pool.shutdownNow());
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                giveBack(pool.shutdownNow());
            }
        }
        // leases were renewed while deliveries drained; now what is still held is given back
        ScheduledExecutorService renewer = this.heartbeat;
        if (renewer != null) {
            renewer.shutdownNow();
        }
        // within one deadline for them all: a store that is away does not hold the shutdown up once per lease
        List<Lease> held = new ArrayList<>(this.running.values());
        held.addAll(this.toRelease);
        this.toRelease.clear();
        release(held);
        logger.info("skail worker stopped");
    }

    @Override
    public boolean isRunning() {
        return this.started;
    }

    /** Whether the last poll reached the store. */
    public boolean isHealthy() {
        return this.started && this.lastPollFailure == null;
    }

    public @Nullable Throwable lastPollFailure() {
        return this.lastPollFailure;
    }

    /**
     * How many executions this worker runs (or has queued to run) now. Not its count of taken slots: a poll takes
     * every free slot while it claims, which would read as a full worker.
     */
    public int busy() {
        return this.running.size();
    }

    /**
     * How many of the {@link #busy} executions wait in this worker's queue for a thread (claimed ahead under a
     * backlog, see {@link #prefetch}).
     */
    public int queued() {
        ThreadPoolExecutor pool = this.executor;
        return (pool != null) ? pool.getQueue().size() : 0;
    }

    public int concurrency() {
        return this.concurrency;
    }

    /** How many executions beyond its free threads a claim may take under a backlog (see the constructor). */
    public int prefetch() {
        return this.prefetch;
    }

    @Override
    public int getPhase() {
        // started after, and stopped before, the web server and everything else
        return Integer.MAX_VALUE - 1024;
    }

    private static ThreadFactory threads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return (runnable) -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
