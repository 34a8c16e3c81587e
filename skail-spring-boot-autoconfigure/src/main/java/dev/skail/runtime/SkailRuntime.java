package dev.skail.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import dev.skail.ExecutionStatus;
import dev.skail.SkailConflictException;
import dev.skail.SkailError;
import dev.skail.SkailExecution;
import dev.skail.SkailHistory;
import dev.skail.SkailInvalidRequestException;
import dev.skail.SkailNotFoundException;
import dev.skail.SkailPage;
import dev.skail.SkailQuery;
import dev.skail.SkailScheduleInfo;
import dev.skail.SkailUnavailableException;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.ScheduleStore;
import dev.skail.platform.StoreDeadline;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.StoredText;
import dev.skail.platform.Tag;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * The runtime: accepts triggers (S13) and runs deliveries. A delivery replays the function against its
 * history and records what happened: completion, a function failure to redeliver (S5), or a failure for good.
 */
public class SkailRuntime {

    private static final Log logger = LogFactory.getLog(SkailRuntime.class);

    /** The characters an execution id may use: letters, digits and {@code . _ - : @}, 1 to 128 of them. */
    public static final Pattern TASK_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}");

    private final ExecutionStore store;

    private final Supplier<SkailCatalog> catalog;

    private final BeanFactory beanFactory;

    private final SkailJson json;

    private final Clock clock;

    private final RuntimeSettings settings;

    private volatile boolean stopping;

    private volatile boolean replayOnly;

    private volatile SkailInstrumentation instrumentation = SkailInstrumentation.NONE;

    private volatile @Nullable SkailWorker localWorker;

    private volatile Runnable wakeUp = () -> {
    };

    private volatile Duration requestTimeout = Duration.ofSeconds(5);

    private final FailurePolicy failurePolicy;

    private final ExceptionCodec exceptions;

    private final FunctionArguments arguments;

    private final ExecutionViews views;

    private volatile @Nullable ServedVersions served;

    private volatile @Nullable ScheduleStore scheduleStore;

    private final ThreadPoolExecutor asyncExecutor;

    private final ResultWaiters results;

    /** The executions a delivery runs for in this process now (see {@link #deliveryStarted}). */
    private final Set<String> deliveringHere = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Executions this process created while it heard every end announced ({@link ExecutionStore#announcesEnds}), and
     * has heard no end of since: while it still hears them, such an execution has not ended, and a wait for it reads
     * nothing as it starts.
     */
    private final RecentIds createdHere = new RecentIds(4096);

    /** Cancels requested through this runtime, so that a delivery running here sees them at its next step. */
    private final Set<String> cancelRequests = java.util.concurrent.ConcurrentHashMap.newKeySet();

    public SkailRuntime(ExecutionStore store, Supplier<SkailCatalog> catalog, BeanFactory beanFactory, SkailJson json,
            Clock clock, RuntimeSettings settings) {
        this(store, catalog, beanFactory, json, clock, settings, new ExceptionCodec(List.of()));
    }

    /**
     * @param exceptions the codec of the exceptions recorded in histories and rebuilt on replay
     */
    public SkailRuntime(ExecutionStore store, Supplier<SkailCatalog> catalog, BeanFactory beanFactory, SkailJson json,
            Clock clock, RuntimeSettings settings, ExceptionCodec exceptions) {
        this.exceptions = exceptions;
        this.arguments = new FunctionArguments(json);
        this.views = new ExecutionViews(json, this::waitingFor);
        this.store = store;
        this.catalog = catalog;
        this.beanFactory = beanFactory;
        this.json = json;
        this.clock = clock;
        this.settings = settings;
        this.failurePolicy = new FailurePolicy(settings.backoff());
        // bounded: a function that fans out a thousand async steps queues them, it does not start a thousand threads
        CustomizableThreadFactory threads = new CustomizableThreadFactory("skail-async-");
        threads.setDaemon(true);
        this.asyncExecutor = new ThreadPoolExecutor(settings.asyncThreads(), settings.asyncThreads(), 30,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
        this.asyncExecutor.allowCoreThreadTimeOut(true);
        this.results = new ResultWaiters(this::readForWaiters, () -> store.onEnded(this::ended),
                this::endSignalledHere);
    }

    public RuntimeSettings settings() {
        return this.settings;
    }

    SkailCatalog catalog() {
        return this.catalog.get();
    }

    ExecutionStore store() {
        return this.store;
    }

    public SkailJson json() {
        return this.json;
    }

    /** Time of the platform: leases, polling, the timestamps of executions. */
    Clock platformClock() {
        return this.clock;
    }

    /** Time of functions: delays, event timeouts, {@code Skail.now()}; the same time line as the platform's. */
    Clock functionClock() {
        return this.clock;
    }

    long leaseUntil() {
        return this.clock.millis() + this.settings.leaseDuration().toMillis();
    }

    boolean isStopping() {
        return this.stopping;
    }

    /** Runs {@code wakeUp} whenever new work is due at once (a trigger, an event, a resume): the worker polls. */
    void onNewWork(Runnable wakeUp) {
        this.wakeUp = wakeUp;
    }

    /** The worker that runs what this process's triggers create claimed, when it has a free slot. */
    void onLocalStart(@Nullable SkailWorker worker) {
        this.localWorker = worker;
    }

    /** Reports metrics and observations through this instrumentation. */
    public void setInstrumentation(SkailInstrumentation instrumentation) {
        this.instrumentation = instrumentation;
    }

    SkailInstrumentation instrumentation() {
        return this.instrumentation;
    }

    /**
     * How long a request (trigger, fire, resume, a query) may wait for the store before it fails with
     * {@link SkailUnavailableException}; the worker's own store operations keep retrying as configured.
     */
    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    /**
     * Runs a request's store operations under the request timeout: a store that cannot be reached in time is a
     * {@link SkailUnavailableException}, with nothing recorded (each store write is one transaction).
     */
    private <T> T request(Supplier<T> work) {
        try {
            return StoreDeadline.within(this.requestTimeout, work);
        }
        catch (StoreUnavailableException ex) {
            throw new SkailUnavailableException(String.valueOf(ex.getMessage()), this.requestTimeout, ex);
        }
    }

    /** Tells the worker that new work is due at once (an execution a schedule started). */
    void newWork() {
        this.wakeUp.run();
    }

    /** Where the schedules live ({@code @SkailSchedule}); without one, {@link #schedules()} shows declarations only. */
    public void setScheduleStore(ScheduleStore scheduleStore) {
        this.scheduleStore = scheduleStore;
    }

    /**
     * The workload's schedules: those this runtime declares and those the store holds for the workload (declared by
     * another version), by function name, with their next and latest ticks.
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout
     */
    public List<SkailScheduleInfo> schedules() {
        return request(() -> ScheduleViews.of(catalog().schedules(), this.scheduleStore, this.settings,
                this.clock.instant()));
    }

    /** Whether this runtime only replays recorded steps and runs nothing new (the local replayer). */
    boolean isReplayOnly() {
        return this.replayOnly;
    }

    void replayOnly() {
        this.replayOnly = true;
    }

    void stopping(boolean stopping) {
        this.stopping = stopping;
    }

    /**
     * Creates an execution, or returns the one that exists with this id and these arguments.
     * @return the execution and whether this call created it
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout
     */
    public Triggered trigger(String workload, String version, String function, String taskId, JsonNode arguments) {
        return request(() -> triggerNow(workload, version, function, taskId, arguments));
    }

    private Triggered triggerNow(String workload, String version, String function, String taskId,
            JsonNode arguments) {
        if (!this.settings.workload().equals(workload)) {
            throw new SkailNotFoundException("Unknown workload '" + workload + "': this runtime serves '"
                    + this.settings.workload() + "'");
        }
        if (!this.settings.version().equals(version)) {
            throw new SkailNotFoundException("Unknown version '" + version + "' of workload '" + workload
                    + "': this runtime serves '" + this.settings.version() + "'");
        }
        FunctionDefinition definition = catalog().function(function)
            .orElseThrow(() -> new SkailNotFoundException("Unknown function '" + function + "' in workload '"
                    + workload + ":" + version + "'; known: " + catalog().functions().stream()
                        .map(FunctionDefinition::name).toList()));
        if (!TASK_ID.matcher(taskId).matches()) {
            throw new SkailInvalidRequestException("Invalid id '" + taskId + "': use 1 to 128 letters, digits and "
                    + "'.', '_', '-', ':', '@', starting with a letter or digit");
        }
        ArrayNode positional = this.arguments.positional(definition, arguments);
        List<Tag> tags = Tags.of(definition, this.arguments.decode(definition, positional));
        long now = this.clock.millis();
        ExecutionRow row = new ExecutionRow(taskId, workload, version, function, this.json.write(positional),
                ExecutionStatus.PENDING, null, null, 1, 0, now, now, now, null);
        // a free worker slot here: the execution is created claimed and runs at once, without a poll or a claim
        SkailWorker worker = this.localWorker;
        boolean reserved = worker != null && worker.reserve();
        Lease lease = null;
        Optional<ExecutionRow> existing = Optional.empty();
        // marked before it exists, so that no end of it can be heard before the mark; unmarked, with a signal, when
        // this trigger did not create it (a wait that saw the mark meanwhile reads then)
        boolean marked = this.store.announcesEnds() && this.results.listening();
        if (marked) {
            this.createdHere.add(taskId);
        }
        boolean created = false;
        try {
            if (reserved) {
                Lease candidate = new Lease(taskId, this.settings.instanceId(), UUID.randomUUID().toString());
                ExecutionStore.Created createdClaimed;
                try {
                    createdClaimed = this.store.createClaimed(row, tags, candidate, leaseUntil());
                }
                catch (RuntimeException ex) {
                    // its commit may have happened (a deadline, a sync that failed): the lease is given back rather
                    // than left to expire, on the worker's poller thread, so that the caller is answered at once
                    // (not after a second wait for a store that has just failed it)
                    worker.releaseSoon(candidate);
                    throw ex;
                }
                existing = createdClaimed.existing();
                lease = createdClaimed.claimed() ? candidate : null;
            }
            else {
                existing = this.store.create(row, tags);
            }
            created = existing.isEmpty();
        }
        finally {
            if (reserved && lease == null) {
                worker.unreserve();
            }
            if (marked && !created) {
                this.createdHere.remove(taskId);
                this.results.ended(taskId);
            }
        }
        if (existing.isEmpty()) {
            if (lease != null) {
                row = new ExecutionRow(taskId, workload, version, function, row.arguments(), ExecutionStatus.RUNNING,
                        null, null, 1, 0, now, now, now, null);
                worker.startReserved(lease, new StoredHistory(row, List.of(), List.of(), List.of()));
            }
            else {
                this.wakeUp.run();
            }
            this.instrumentation.executionStarted(function);
            return new Triggered(this.views.execution(row, tags), true);
        }
        ExecutionRow found = existing.get();
        if (!found.function().equals(function) || !found.workload().equals(workload)
                || !found.version().equals(version) || !this.json.sameArguments(this.json.parse(found.arguments()),
                        positional, definition.step().method().getGenericParameterTypes())) {
            // S13 compares the arguments the function would see, decoded with its declared types: 1 and 1.0 for an int
            // are the same trigger. Numerically equal BigDecimals (150.00 and 150.0) are the same trigger too, though
            // BigDecimal.equals tells them apart: a client that retries through a JSON library that rewrites numbers
            // (JavaScript writes 150.00 as 150) must get its execution back, not a conflict; the execution keeps the
            // arguments of the trigger that created it, and a repeat answers them.
            throw new SkailConflictException("Execution '" + taskId + "' already exists as " + found.workload() + ":"
                    + found.version() + "/" + found.function() + " with arguments " + found.arguments()
                    + "; a trigger that repeats an id must repeat its function and arguments");
        }
        return new Triggered(view(found), false);
    }

    /** Arguments given from Java code, as the JSON array a trigger carries. */
    public ArrayNode encode(String function, Object[] arguments) {
        FunctionDefinition definition = catalog().function(function)
            .orElseThrow(() -> new SkailNotFoundException("Unknown function '" + function + "'"));
        return this.arguments.encode(definition, arguments);
    }

    /**
     * The {@code workload:version} a PENDING or WAITING execution waits for when no runtime of its version has been
     * alive within two leases (S12), or {@code null}.
     */
    @Nullable String waitingFor(ExecutionRow row) {
        if (row.status() != ExecutionStatus.PENDING && row.status() != ExecutionStatus.WAITING) {
            return null;
        }
        Set<String> served = versionsServed(row.workload());
        return (served != null && !served.contains(row.version())) ? row.workload() + ":" + row.version() : null;
    }

    @Nullable Set<String> versionsServed(String workload) {
        long now = this.clock.millis();
        ServedVersions cached = this.served;
        if (cached == null || !cached.workload().equals(workload) || now - cached.at() > 1000) {
            long seenSince = now - 2 * this.settings.leaseDuration().toMillis();
            try {
                cached = new ServedVersions(workload, now, this.store.versionsServed(workload, seenSince));
            }
            catch (RuntimeException ex) {
                return null; // the view goes without it
            }
            this.served = cached;
        }
        return cached.versions();
    }

    private record ServedVersions(String workload, long at, @Nullable Set<String> versions) {
    }

    /**
     * Runs one delivery of the execution this lease holds.
     * @return whether its end made no other work due (see {@link DeliveryRunner#deliver(Lease, StoredHistory, long)})
     */
    boolean deliver(Lease lease) {
        return new DeliveryRunner(this).deliver(lease);
    }

    /**
     * Runs an execution whose history is known without a read: created claimed by this process, or told by its claim.
     * @param knownNanos when it was known ({@link System#nanoTime})
     * @return whether its end made no other work due
     */
    boolean deliver(Lease lease, StoredHistory known, long knownNanos) {
        return new DeliveryRunner(this).deliver(lease, known, knownNanos);
    }

    /** The arguments an execution was triggered with, decoded with the function's declared parameter types. */
    Object[] decodeArguments(FunctionDefinition definition, String argumentsJson) {
        return this.arguments.decode(definition, this.json.parse(argumentsJson));
    }

    Object bean(String name) {
        return this.beanFactory.getBean(name);
    }

    FailurePolicy failurePolicy() {
        return this.failurePolicy;
    }

    /** A recorded form of the exception, from which {@link #decodeError} rebuilds it. */
    SkailError encodeError(Throwable failure) {
        return this.exceptions.encode(failure);
    }

    /** The exception a recorded error stands for, rebuilt as the function must see it on every replay. */
    Throwable decodeError(SkailError error, @Nullable ClassLoader classLoader) {
        return this.exceptions.decode(error, classLoader);
    }

    /**
     * The executions the query matches, newest first, one page of them, each with its tags.
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout
     */
    public SkailPage search(SkailQuery query) {
        return request(() -> {
            List<ExecutionRow> rows = this.store.search(query, (long) query.page() * query.size(), query.size() + 1);
            boolean hasMore = rows.size() > query.size();
            List<ExecutionRow> page = rows.subList(0, Math.min(rows.size(), query.size()));
            Map<String, List<Tag>> tags = this.store.tags(page.stream().map(ExecutionRow::taskId).toList());
            return new SkailPage(page.stream()
                .map((row) -> this.views.execution(row, tags.getOrDefault(row.taskId(), List.of())))
                .toList(), query.page(), query.size(), hasMore);
        });
    }

    /**
     * How many executions the query matches per status, its own statuses left aside; every status is there.
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout
     */
    public Map<ExecutionStatus, Long> count(SkailQuery query) {
        return request(() -> this.store.countByStatus(query));
    }

    public Optional<SkailExecution> find(String taskId) {
        return request(() -> this.store.findTagged(taskId)
            .map((found) -> this.views.execution(found.execution(), found.tags())));
    }

    public SkailHistory history(String taskId) {
        return request(() -> {
            StoredHistory history = this.store.history(taskId)
                .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
            return this.views.history(history, this.store.tags(List.of(taskId)).getOrDefault(taskId, List.of()));
        });
    }

    /** The execution as the API and the client show it, with its tags (read from the store). */
    public SkailExecution view(ExecutionRow row) {
        return this.views.execution(row,
                this.store.tags(List.of(row.taskId())).getOrDefault(row.taskId(), List.of()));
    }

    /**
     * Fires an event at an execution (S7): kept until the function waits for it, and the execution woken if it is
     * waiting.
     * @throws SkailNotFoundException if the execution is unknown, or of another workload or version
     * @throws SkailConflictException if it has ended
     */
    public void fire(String workload, String version, String taskId, String event, @Nullable String payloadJson) {
        fire(workload, version, taskId, event, payloadJson, null);
    }

    /**
     * Fires an event, at most once per {@code eventKey}: a request repeated with the same key (e.g. a client's retry
     * after a lost answer) keeps no second event. Without a key, each call is a new event.
     */
    public void fire(String workload, String version, String taskId, String event, @Nullable String payloadJson,
            @Nullable String eventKey) {
        request(() -> {
            fireNow(workload, version, taskId, event, payloadJson, eventKey);
            return null;
        });
    }

    private void fireNow(String workload, String version, String taskId, String event, @Nullable String payloadJson,
            @Nullable String eventKey) {
        if (eventKey != null && (eventKey.isBlank() || eventKey.length() > 200)) {
            throw new SkailInvalidRequestException("Invalid idempotency key: use 1 to 200 characters");
        }
        if (eventKey != null && StoredText.loneSurrogate(eventKey) >= 0) {
            throw new SkailInvalidRequestException("Invalid idempotency key: half a surrogate pair at index "
                    + StoredText.loneSurrogate(eventKey) + " (a key is Unicode text)");
        }
        ExecutionRow execution = this.store.find(taskId)
            .filter((row) -> row.workload().equals(workload) && row.version().equals(version))
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "' in workload '" + workload
                    + ":" + version + "'"));
        if (event.isBlank() || event.length() > 200) {
            throw new SkailInvalidRequestException("Invalid event name: use 1 to 200 characters");
        }
        if (StoredText.loneSurrogate(event) >= 0) {
            throw new SkailInvalidRequestException("Invalid event name: half a surrogate pair at index "
                    + StoredText.loneSurrogate(event) + " (a name is Unicode text)");
        }
        if (event.startsWith("skail:")) {
            throw new SkailInvalidRequestException("Invalid event name '" + event + "': names starting with 'skail:' "
                    + "are reserved (a cancel is requested with the cancel route)");
        }
        String key = (eventKey != null) ? eventKey : java.util.UUID.randomUUID().toString();
        ExecutionStore.FireOutcome outcome = this.store.fire(execution.taskId(), event, payloadJson, key,
                this.clock.millis());
        switch (outcome) {
            case NOT_FOUND -> throw new SkailNotFoundException("Unknown execution '" + taskId + "'");
            case ENDED -> throw new SkailConflictException("Execution '" + taskId + "' has ended ("
                    + this.store.find(taskId).map(ExecutionRow::status).orElse(ExecutionStatus.COMPLETED)
                    + "): it takes no more events");
            case FIRED -> this.wakeUp.run();
        }
    }

    /**
     * Resumes a FAILED execution by hand (S5): commands already recorded do not run again; the failed command, and
     * the function, start their attempts over.
     * @throws SkailNotFoundException if the execution is unknown
     * @throws SkailConflictException if it is not FAILED
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout
     */
    public SkailExecution resume(String taskId) {
        return request(() -> resumeNow(taskId));
    }

    private SkailExecution resumeNow(String taskId) {
        ExecutionRow execution = this.store.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
        long now = this.clock.millis();
        if (!this.store.resume(taskId, now)) {
            throw new SkailConflictException("Execution '" + taskId + "' is " + execution.status()
                    + ": only a FAILED execution can be resumed");
        }
        logger.info("skail execution '" + taskId + "' resumed by hand");
        // as the resume left it (PENDING), not as read after it: a poll may take it meanwhile. The resume changed a
        // FAILED row, which nothing else changes, so the row read before is the row it changed
        ExecutionRow resumed = new ExecutionRow(execution.taskId(), execution.workload(), execution.version(),
                execution.function(), execution.arguments(), ExecutionStatus.PENDING, execution.result(), null,
                execution.attempt() + 1, 0, now, execution.createdAt(), now, execution.parentTaskId());
        this.wakeUp.run();
        return view(resumed);
    }

    /**
     * Cancels an execution (and, through the same request, its children that have not ended): a waiting or pending
     * one is due at once and sees {@link dev.skail.SkailCancelledException} at the step where it waits; a running one
     * sees it at its next step boundary. It may compensate; when its function ends, it is CANCELLED.
     * @return the execution as it stands once the request is kept
     * @throws SkailNotFoundException if the execution is unknown
     * @throws SkailConflictException if it has ended
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout
     */
    public SkailExecution cancel(String taskId) {
        return request(() -> cancelNow(taskId));
    }

    private SkailExecution cancelNow(String taskId) {
        ExecutionRow execution = this.store.find(taskId)
            .orElseThrow(() -> new SkailNotFoundException("Unknown execution '" + taskId + "'"));
        if (execution.status().isTerminal()) {
            throw new SkailConflictException("Execution '" + taskId + "' has ended (" + execution.status()
                    + "): it cannot be cancelled");
        }
        this.cancelRequests.add(taskId);
        switch (this.store.requestCancel(taskId, this.clock.millis())) {
            case NOT_FOUND -> throw new SkailNotFoundException("Unknown execution '" + taskId + "'");
            case ENDED -> {
                this.cancelRequests.remove(taskId);
                throw new SkailConflictException("Execution '" + taskId + "' has ended ("
                        + this.store.find(taskId).map(ExecutionRow::status).orElse(ExecutionStatus.COMPLETED)
                        + "): it cannot be cancelled");
            }
            case REQUESTED -> logger.info("skail execution '" + taskId + "' cancel requested");
        }
        for (String child : this.store.runningChildren(taskId)) {
            cancelQuietly(child);
        }
        this.wakeUp.run();
        return find(taskId).orElseThrow();
    }

    /**
     * Cancels, or resumes, the executions a query matches that the action applies to (cancel: those that have not
     * ended; resume: the FAILED ones), newest first, at most {@code max} of them, once the operator's count is still
     * right.
     * @param action what to do
     * @param query the filters (its page and size are not used)
     * @param expected how many executions the operator confirmed acting on
     * @param max the most executions one request acts on
     * @return how many matched, were acted on, and were skipped (past {@code max}, or changed meanwhile)
     * @throws CountChanged if as many executions no longer match as the operator confirmed
     * @throws SkailUnavailableException if the store cannot be reached within the request timeout (those acted on
     * before stay so)
     */
    public BulkOutcome bulk(BulkAction action, SkailQuery query, long expected, int max) {
        Set<ExecutionStatus> applicable = java.util.EnumSet.noneOf(ExecutionStatus.class);
        for (ExecutionStatus status : action.statuses()) {
            if (query.statuses().isEmpty() || query.statuses().contains(status)) {
                applicable.add(status);
            }
        }
        if (applicable.isEmpty()) {
            if (expected != 0) {
                throw new CountChanged(action, 0, expected);
            }
            return new BulkOutcome(0, 0, 0);
        }
        SkailQuery eligible = query.withStatuses(applicable);
        Map<ExecutionStatus, Long> counts = count(eligible);
        long matched = applicable.stream().mapToLong((status) -> counts.getOrDefault(status, 0L)).sum();
        if (matched != expected) {
            throw new CountChanged(action, matched, expected);
        }
        // never more than the operator confirmed: executions that match since the count was taken are left alone
        List<String> ids = request(() -> this.store.search(eligible, 0, (int) Math.max(1, Math.min(max, expected))).stream()
            .map(ExecutionRow::taskId).toList());
        int acted = 0;
        for (String taskId : ids) {
            try {
                if (action == BulkAction.CANCEL) {
                    cancel(taskId);
                }
                else {
                    resume(taskId);
                }
                acted++;
            }
            catch (SkailConflictException | SkailNotFoundException ex) {
                // it ended, was resumed or deleted since it was counted: skipped
                logger.debug("skail bulk " + action + " skipped '" + taskId + "': " + ex.getMessage());
            }
        }
        logger.info("skail bulk " + action.name().toLowerCase(java.util.Locale.ROOT) + " of " + query + ": " + matched
                + " matched, " + acted + " acted on");
        return new BulkOutcome(matched, acted, Math.max(0, matched - acted));
    }

    /** What a bulk request does to the executions it matches. */
    public enum BulkAction {

        /** {@link #cancel} the executions that have not ended. */
        CANCEL(ExecutionStatus.PENDING, ExecutionStatus.RUNNING, ExecutionStatus.WAITING),

        /** {@link #resume} the FAILED executions. */
        RESUME(ExecutionStatus.FAILED);

        private final Set<ExecutionStatus> statuses;

        BulkAction(ExecutionStatus... statuses) {
            this.statuses = Set.of(statuses);
        }

        /** The statuses of the executions the action applies to. */
        public Set<ExecutionStatus> statuses() {
            return this.statuses;
        }
    }

    /**
     * What a bulk request did.
     *
     * @param matched how many executions matched the filters, of those the action applies to
     * @param acted how many were cancelled or resumed
     * @param skipped how many were not: past the request's maximum, or changed since they were counted
     */
    public record BulkOutcome(long matched, int acted, long skipped) {
    }

    /** The count the operator confirmed is no longer the count of executions a bulk request matches. */
    public static final class CountChanged extends SkailConflictException {

        private static final long serialVersionUID = 1L;

        private final long matched;

        private final long expected;

        CountChanged(BulkAction action, long matched, long expected) {
            super(matched + " execution(s) match the filters now, not the " + expected + " confirmed; confirm the "
                    + action.name().toLowerCase(java.util.Locale.ROOT) + " of " + matched + " again");
            this.matched = matched;
            this.expected = expected;
        }

        /** How many executions the request matches now. */
        public long matched() {
            return this.matched;
        }

        /** How many the request confirmed. */
        public long expected() {
            return this.expected;
        }
    }

    /** Passes a cancel request on to a child; one that has ended meanwhile, or cannot be reached, is left. */
    void cancelQuietly(String taskId) {
        try {
            cancelNow(taskId);
        }
        catch (RuntimeException ex) {
            logger.debug("skail did not pass the cancel request on to '" + taskId + "': " + ex.getMessage());
        }
    }

    /** Whether a cancel of this execution was requested through this runtime (a running delivery sees it at once). */
    boolean cancelRequestedHere(String taskId) {
        return this.cancelRequests.contains(taskId);
    }

    /** Forgets a cancel request once the execution has ended cancelled. */
    void cancelHandled(String taskId) {
        this.cancelRequests.remove(taskId);
    }

    /** The threads of steps started with {@code Skail.async}, at most {@code skail.worker.async-threads}. */
    Executor asyncExecutor() {
        return this.asyncExecutor;
    }

    /** Stops the threads of async steps. */
    public void close() {
        this.results.close();
        for (Runnable queued : this.asyncExecutor.shutdownNow()) {
            if (queued instanceof ParallelSteps.Branch branch) {
                branch.discard();
            }
        }
    }

    /**
     * Probes the store at once, without retries past {@code timeout}, and counts this workload version's executions
     * by status (see {@link ExecutionStore#counts}).
     * @throws dev.skail.platform.StoreUnavailableException with the reason, when the store cannot be reached
     */
    public Map<String, Long> probe(Duration timeout) {
        return StoreDeadline.within(timeout, () -> {
            this.store.check();
            return counts();
        });
    }

    public Map<String, Long> counts() {
        return this.store.counts(this.settings.workload(), this.settings.version(), this.clock.millis());
    }

    /**
     * A future completed with the execution once it has ended (COMPLETED, FAILED or CANCELLED), exceptionally with
     * {@link SkailNotFoundException} if it does not exist. No thread waits meanwhile: the end is signalled by this
     * process's worker and, on PostgreSQL, by other instances' notifications; the store is read once as the wait
     * starts (not when a delivery of the execution runs in this process then: it signals; nor, on PostgreSQL, when
     * this process created it and has heard no end of it since) and then every few seconds as a safety net. Cancel
     * the future to stop waiting.
     */
    public java.util.concurrent.CompletableFuture<SkailExecution> awaitEnd(String taskId) {
        return this.results.await(taskId);
    }

    /** Tells the callers waiting for this execution (or for any, with {@code null}) that it may have ended. */
    void ended(@Nullable String taskId) {
        if (taskId != null) {
            // before the signal: see ResultWaiters#await
            this.deliveringHere.remove(taskId);
            this.createdHere.remove(taskId);
        }
        else {
            // any may have ended (notifications may have been missed): waits that start now read, whatever runs here
            // or was created here
            this.deliveringHere.clear();
            this.createdHere.clear();
        }
        this.results.ended(taskId);
    }

    /**
     * The execution as its waiters read it: read ended, it is no longer one whose end is still to be heard here (an
     * end nobody announced, its instance stopped just after the end's commit, would otherwise leave later waits for it
     * to the recheck).
     */
    private Optional<SkailExecution> readForWaiters(String taskId) {
        Optional<SkailExecution> found = find(taskId);
        if (found.isPresent() && found.get().status().isTerminal()) {
            this.createdHere.remove(taskId);
        }
        return found;
    }

    /**
     * Whether the end of the execution, if it comes, is signalled to this process's waiters, and it had not ended when
     * that became so: a delivery of it runs here, or this process created it and has heard no end of it since.
     */
    boolean endSignalledHere(String taskId) {
        return this.deliveringHere.contains(taskId) || createdHereAndHeard(taskId);
    }

    /** Created here while every end was heard, no end of it heard since, and every end still heard now. */
    private boolean createdHereAndHeard(String taskId) {
        return this.createdHere.contains(taskId) && this.results.listening();
    }

    /** A delivery of the execution starts in this process: until it ends, its waiters need not read the store. */
    void deliveryStarted(String taskId) {
        this.deliveringHere.add(taskId);
    }

    /**
     * The delivery of the execution has ended here: when it did not signal the execution's end (a suspension, a
     * release, a lease lost), the waits that started while it ran, and so read nothing, read the store once; not for
     * an execution created here whose end has not been heard (see {@link #endSignalledHere}).
     */
    void deliveryEnded(String taskId) {
        // one created here whose end has not been heard: its end will be, and the waits need not read before it
        if (this.deliveringHere.remove(taskId) && !createdHereAndHeard(taskId)) {
            this.results.deliveryEnded(taskId);
        }
    }

    /**
     * Tells the callers waiting for this execution that it has ended, as {@code ended} (read from the store otherwise).
     */
    void ended(String taskId, dev.skail.platform.@Nullable TaggedExecution ended) {
        // before the signal: see ResultWaiters#await
        this.deliveringHere.remove(taskId);
        this.createdHere.remove(taskId);
        if (ended == null) {
            this.results.ended(taskId);
        }
        else if (this.results.waitsFor(taskId)) {
            this.results.ended(taskId, this.views.execution(ended.execution(), ended.tags()));
        }
    }

    /** How often waiting callers read the store as a safety net (default 5 seconds). */
    public void setResultRecheckInterval(Duration interval) {
        this.results.setRecheck(interval);
    }

    /** The declared (generic) return type of a function of this workload, if it has one by that name. */
    public Optional<java.lang.reflect.Type> resultType(String function) {
        return catalog().function(function).map((definition) -> definition.step().method().getGenericReturnType());
    }

    /** A set of ids that keeps the newest {@code capacity} added; thread-safe. */
    private static final class RecentIds {

        private final java.util.LinkedHashSet<String> ids = new java.util.LinkedHashSet<>();

        private final int capacity;

        RecentIds(int capacity) {
            this.capacity = capacity;
        }

        synchronized void add(String id) {
            this.ids.add(id);
            if (this.ids.size() > this.capacity) {
                this.ids.remove(this.ids.iterator().next());
            }
        }

        synchronized boolean contains(String id) {
            return this.ids.contains(id);
        }

        synchronized void remove(String id) {
            this.ids.remove(id);
        }

        synchronized void clear() {
            this.ids.clear();
        }
    }

    /**
     * The outcome of a trigger.
     *
     * @param execution the execution
     * @param created whether this trigger created it
     */
    public record Triggered(SkailExecution execution, boolean created) {
    }
}
