package dev.skail.runtime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.skail.ExecutionStatus;
import dev.skail.SkailQuery;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreStatementException;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import org.jspecify.annotations.Nullable;

/**
 * An {@link ExecutionStore} in memory for fast engine tests, mirroring {@code JdbcExecutionStore} rule by rule: the
 * same due queries, the same fencing (a write is accepted while the execution is RUNNING under the presented token),
 * the same drops of failed steps, the same wake-ups. Every method is one transaction: it runs under the store's lock
 * on a copy-on-failure snapshot, so a refused write (a duplicate key, a lost lease) leaves nothing behind. A
 * duplicate key is refused with a {@link StoreStatementException}, as the JDBC store reports a unique violation.
 */
final class InMemoryExecutionStore implements ExecutionStore {

    private Map<String, Held> executions = new LinkedHashMap<>();

    private Map<String, TreeMap<Integer, StepRow>> steps = new HashMap<>();

    private List<AttemptRow> attempts = new ArrayList<>();

    private List<KeptEvent> events = new ArrayList<>();

    private long lastEventId;

    private Map<String, Set<Tag>> tags = new HashMap<>();

    @Override
    public synchronized void initialize() {
    }

    @Override
    public synchronized Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags) {
        Held existing = this.executions.get(execution.taskId());
        if (existing != null) {
            return Optional.of(existing.row());
        }
        this.executions.put(execution.taskId(), new Held(execution, null, null, null));
        this.tags.computeIfAbsent(execution.taskId(), (id) -> new java.util.LinkedHashSet<>()).addAll(tags);
        return Optional.empty();
    }

    @Override
    public synchronized Optional<ExecutionRow> find(String taskId) {
        return Optional.ofNullable(this.executions.get(taskId)).map(Held::row);
    }

    @Override
    public synchronized Optional<StoredHistory> history(String taskId) {
        Held held = this.executions.get(taskId);
        if (held == null) {
            return Optional.empty();
        }
        return Optional.of(new StoredHistory(held.row(), steps(taskId), attempts(taskId), events(taskId)));
    }

    @Override
    public synchronized List<ExecutionRow> search(SkailQuery query, long offset, int limit) {
        return this.executions.values().stream()
            .map(Held::row)
            .filter((row) -> query.statuses().isEmpty() || query.statuses().contains(row.status()))
            .filter((row) -> matches(query, row))
            .sorted(Comparator.comparingLong(ExecutionRow::createdAt).thenComparing(ExecutionRow::taskId).reversed())
            .skip(Math.max(0, offset))
            .limit(Math.max(1, limit))
            .toList();
    }

    @Override
    public synchronized Map<ExecutionStatus, Long> countByStatus(SkailQuery query) {
        Map<ExecutionStatus, Long> counts = new java.util.EnumMap<>(ExecutionStatus.class);
        for (ExecutionStatus status : ExecutionStatus.values()) {
            counts.put(status, 0L);
        }
        this.executions.values().stream().map(Held::row).filter((row) -> matches(query, row))
            .forEach((row) -> counts.merge(row.status(), 1L, Long::sum));
        return counts;
    }

    /** The query's filters but its statuses; times as the JDBC store compares them, in milliseconds. */
    private boolean matches(SkailQuery query, ExecutionRow row) {
        return (query.function() == null || row.function().equals(query.function()))
                && within(row.createdAt(), query.createdFrom(), query.createdTo())
                && within(row.updatedAt(), query.updatedFrom(), query.updatedTo())
                && (query.idContaining() == null || row.taskId().contains(query.idContaining()))
                && query.tags().stream().allMatch((tag) -> this.tags.getOrDefault(row.taskId(), Set.of())
                    .contains(new Tag(tag.key(), tag.value())));
    }

    private static boolean within(long millis, java.time.@Nullable Instant from, java.time.@Nullable Instant to) {
        java.time.Instant at = java.time.Instant.ofEpochMilli(millis);
        return (from == null || !at.isBefore(from)) && (to == null || at.isBefore(to));
    }

    @Override
    public synchronized Map<String, List<Tag>> tags(java.util.Collection<String> taskIds) {
        Map<String, List<Tag>> tags = new LinkedHashMap<>();
        for (String taskId : taskIds) {
            Set<Tag> of = this.tags.get(taskId);
            if (of != null && !of.isEmpty()) {
                tags.put(taskId, List.copyOf(of));
            }
        }
        return tags;
    }

    @Override
    public synchronized void tag(Lease lease, Tag tag, long now, long leaseUntil) {
        transaction(() -> {
            requireLease(lease, now, leaseUntil);
            this.tags.computeIfAbsent(lease.taskId(), (id) -> new java.util.LinkedHashSet<>()).add(tag);
            return null;
        });
    }

    @Override
    public synchronized List<Lease> claimDue(String workload, String version, String owner, int limit, long now,
            long leaseUntil, Set<String> exclude) {
        // the same three queues as the JDBC store, taken in turns
        List<List<String>> due = new ArrayList<>();
        due.add(ids(workload, version, exclude, (held) -> held.row().status() == ExecutionStatus.PENDING
                && held.row().nextRunAt() != null && held.row().nextRunAt() <= now, (held) -> held.row().nextRunAt()));
        due.add(ids(workload, version, exclude, (held) -> held.row().status() == ExecutionStatus.WAITING
                && held.row().nextRunAt() != null && held.row().nextRunAt() <= now, (held) -> held.row().nextRunAt()));
        due.add(ids(workload, version, exclude, (held) -> held.row().status() == ExecutionStatus.RUNNING
                && held.leaseUntil() != null && held.leaseUntil() < now, Held::leaseUntil));
        List<String> candidates = new ArrayList<>();
        for (int i = 0; candidates.size() < limit && due.stream().anyMatch((ids) -> !ids.isEmpty()); i++) {
            List<String> ids = due.get(i % due.size());
            if (!ids.isEmpty()) {
                String taskId = ids.remove(0);
                if (!candidates.contains(taskId)) {
                    candidates.add(taskId);
                }
            }
        }
        List<Lease> leases = new ArrayList<>();
        for (String taskId : candidates) {
            Held held = this.executions.get(taskId);
            if (isDue(held, now)) {
                String token = UUID.randomUUID().toString();
                this.executions.put(taskId, new Held(with(held.row(), ExecutionStatus.RUNNING, held.row().nextRunAt(),
                        now), owner, token, leaseUntil));
                leases.add(new Lease(taskId, owner, token));
            }
        }
        return leases;
    }

    private List<String> ids(String workload, String version, Set<String> exclude,
            java.util.function.Predicate<Held> due, Function<Held, Long> order) {
        return this.executions.values().stream()
            .filter((held) -> held.row().workload().equals(workload) && held.row().version().equals(version))
            .filter(due)
            .sorted(Comparator.comparing(order))
            .map((held) -> held.row().taskId())
            .filter((taskId) -> !exclude.contains(taskId))
            .collect(java.util.stream.Collectors.toCollection(ArrayList::new));
    }

    private static boolean isDue(Held held, long now) {
        ExecutionRow row = held.row();
        boolean waitingDue = (row.status() == ExecutionStatus.PENDING || row.status() == ExecutionStatus.WAITING)
                && row.nextRunAt() != null && row.nextRunAt() <= now;
        boolean expired = row.status() == ExecutionStatus.RUNNING && held.leaseUntil() != null
                && held.leaseUntil() < now;
        return waitingDue || expired;
    }

    @Override
    public synchronized List<Lease> renew(List<Lease> leases, long now, long leaseUntil) {
        List<Lease> lost = new ArrayList<>();
        for (Lease lease : leases) {
            if (!fence(lease, now, leaseUntil) && heldByAnother(lease)) {
                lost.add(lease);
            }
        }
        return lost;
    }

    @Override
    public synchronized void recordStep(Lease lease, StepRow step, @Nullable AttemptRow attempt, long now,
            long leaseUntil) {
        transaction(() -> {
            requireLease(lease, now, leaseUntil);
            writeStep(step);
            if (attempt != null) {
                insertAttempt(attempt);
            }
            return null;
        });
    }

    @Override
    public synchronized void recordAttempt(Lease lease, AttemptRow attempt, long now, long leaseUntil) {
        transaction(() -> {
            requireLease(lease, now, leaseUntil);
            insertAttempt(attempt);
            return null;
        });
    }

    @Override
    public synchronized void suspend(Lease lease, Suspend suspend, long now) {
        transaction(() -> {
            requireLease(lease, now, now);
            Long nextRunAt = awaitedArrived(lease.taskId(), suspend) ? Long.valueOf(now) : suspend.nextRunAt();
            Held held = this.executions.get(lease.taskId());
            this.executions.put(lease.taskId(), released(with(held.row(), suspend.status(), nextRunAt, now)));
            return null;
        });
    }

    private boolean awaitedArrived(String taskId, Suspend suspend) {
        for (String name : suspend.events()) {
            if (this.events.stream().anyMatch((event) -> event.row().taskId().equals(taskId)
                    && event.row().name().equals(name) && event.row().consumedPosition() == null)) {
                return true;
            }
        }
        for (String child : suspend.children()) {
            Held held = this.executions.get(child);
            if (held != null && held.row().status().isTerminal()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public synchronized void startChild(Lease lease, StepRow step, ExecutionRow child, List<Tag> childTags, long now,
            long leaseUntil) {
        transaction(() -> {
            requireLease(lease, now, leaseUntil);
            if (this.executions.containsKey(child.taskId())) {
                throw new StoreStatementException("duplicate execution " + child.taskId(), null);
            }
            this.executions.put(child.taskId(), new Held(child, null, null, null));
            this.tags.computeIfAbsent(child.taskId(), (id) -> new java.util.LinkedHashSet<>()).addAll(childTags);
            writeStep(step);
            return null;
        });
    }

    @Override
    public synchronized Optional<EventRow> takeEvent(Lease lease, String name, Function<EventRow, StepRow> step,
            long now, long leaseUntil) {
        return transaction(() -> {
            requireLease(lease, now, leaseUntil);
            KeptEvent oldest = this.events.stream()
                .filter((event) -> event.row().taskId().equals(lease.taskId()) && event.row().name().equals(name)
                        && event.row().consumedPosition() == null)
                .min(Comparator.comparingLong((KeptEvent event) -> event.row().id()))
                .orElse(null);
            if (oldest == null) {
                return Optional.<EventRow>empty();
            }
            StepRow recorded = step.apply(oldest.row());
            EventRow consumed = new EventRow(oldest.row().id(), oldest.row().taskId(), oldest.row().name(),
                    oldest.row().payload(), oldest.row().firedAt(), recorded.position());
            this.events.set(this.events.indexOf(oldest), new KeptEvent(consumed, oldest.key()));
            writeStep(recorded);
            return Optional.of(oldest.row());
        });
    }

    @Override
    public synchronized FireOutcome fire(String taskId, String name, @Nullable String payload, String eventKey,
            long now) {
        Held held = this.executions.get(taskId);
        if (held == null) {
            return FireOutcome.NOT_FOUND;
        }
        if (held.row().status().isTerminal()) {
            return FireOutcome.ENDED;
        }
        if (this.events.stream().anyMatch((event) -> event.row().taskId().equals(taskId)
                && event.key().equals(eventKey))) {
            return FireOutcome.FIRED; // kept already
        }
        this.events.add(new KeptEvent(new EventRow(++this.lastEventId, taskId, name, payload, now, null), eventKey));
        // a waiting execution is due at once; a running one checks for kept events when it suspends
        if (held.row().status() == ExecutionStatus.WAITING) {
            this.executions.put(taskId, new Held(with(held.row(), ExecutionStatus.WAITING, now, now), held.owner(),
                    held.token(), held.leaseUntil()));
        }
        return FireOutcome.FIRED;
    }

    @Override
    public synchronized void scheduleFunctionRetry(Lease lease, AttemptRow attempt, Set<Integer> dropped,
            long nextRunAt, long now) {
        transaction(() -> {
            requireLease(lease, now, now);
            insertAttempt(attempt);
            TreeMap<Integer, StepRow> recorded = stepsOf(lease.taskId());
            for (Integer position : dropped) {
                StepRow step = recorded.get(position);
                if (step != null && StepRow.FAILED.equals(step.status()) && StepRow.COMMAND.equals(step.kind())) {
                    recorded.remove(position);
                }
            }
            ExecutionRow row = this.executions.get(lease.taskId()).row();
            this.executions.put(lease.taskId(), released(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                    row.function(), row.arguments(), ExecutionStatus.PENDING, row.result(), row.error(),
                    row.attempt() + 1, row.retriesUsed() + 1, nextRunAt, row.createdAt(), now, row.parentTaskId())));
            return null;
        });
    }

    /** As the JDBC store: only the last step, when it is a failed command. */
    private void dropLastFailedCommand(String taskId) {
        TreeMap<Integer, StepRow> recorded = stepsOf(taskId);
        if (!recorded.isEmpty() && StepRow.FAILED.equals(recorded.lastEntry().getValue().status())
                && StepRow.COMMAND.equals(recorded.lastEntry().getValue().kind())) {
            recorded.pollLastEntry();
        }
    }

    @Override
    public synchronized void complete(Lease lease, @Nullable String resultJson, long now) {
        transaction(() -> {
            requireLease(lease, now, now);
            ExecutionRow row = this.executions.get(lease.taskId()).row();
            this.executions.put(lease.taskId(), released(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                    row.function(), row.arguments(), ExecutionStatus.COMPLETED, resultJson, row.error(), row.attempt(),
                    row.retriesUsed(), null, row.createdAt(), now, row.parentTaskId())));
            wakeParent(lease.taskId(), now);
            return null;
        });
    }

    @Override
    public synchronized void fail(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now) {
        transaction(() -> {
            requireLease(lease, now, now);
            if (attempt != null) {
                insertAttempt(attempt);
            }
            ExecutionRow row = this.executions.get(lease.taskId()).row();
            this.executions.put(lease.taskId(), released(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                    row.function(), row.arguments(), ExecutionStatus.FAILED, row.result(), errorJson, row.attempt(),
                    row.retriesUsed(), null, row.createdAt(), now, row.parentTaskId())));
            wakeParent(lease.taskId(), now);
            return null;
        });
    }

    /** As the JDBC store: the parent, whatever its status, is due now only if it is WAITING. */
    private void wakeParent(String taskId, long now) {
        String parentId = this.executions.get(taskId).row().parentTaskId();
        Held parent = (parentId != null) ? this.executions.get(parentId) : null;
        if (parent != null && parent.row().status() == ExecutionStatus.WAITING) {
            ExecutionRow row = parent.row();
            this.executions.put(parentId, new Held(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                    row.function(), row.arguments(), row.status(), row.result(), row.error(), row.attempt(),
                    row.retriesUsed(), now, row.createdAt(), row.updatedAt(), row.parentTaskId()), parent.owner(),
                    parent.token(), parent.leaseUntil()));
        }
    }

    @Override
    public synchronized CancelOutcome requestCancel(String taskId, long now) {
        CancelOutcome outcome = ExecutionStore.super.requestCancel(taskId, now);
        Held held = this.executions.get(taskId);
        if (outcome == CancelOutcome.REQUESTED && held.row().status() == ExecutionStatus.PENDING
                && held.row().nextRunAt() != null && held.row().nextRunAt() > now) {
            this.executions.put(taskId, new Held(with(held.row(), ExecutionStatus.PENDING, now, now), held.owner(),
                    held.token(), held.leaseUntil()));
        }
        return outcome;
    }

    @Override
    public synchronized boolean cancelRequested(String taskId) {
        return this.events.stream()
            .anyMatch((event) -> event.row().taskId().equals(taskId) && CANCEL_EVENT.equals(event.row().name()));
    }

    @Override
    public synchronized void recordCancel(Lease lease, StepRow step, long now, long leaseUntil) {
        transaction(() -> {
            requireLease(lease, now, leaseUntil);
            StepRow existing = stepsOf(step.taskId()).get(step.position());
            if (existing != null && StepRow.PENDING.equals(existing.status())) {
                stepsOf(step.taskId()).remove(step.position());
            }
            if (existing == null || !StepRow.CANCEL.equals(existing.kind())) {
                writeStep(step);
            }
            return null;
        });
    }

    @Override
    public synchronized void cancelled(Lease lease, @Nullable String resultJson, String errorJson, long now) {
        transaction(() -> {
            requireLease(lease, now, now);
            ExecutionRow row = this.executions.get(lease.taskId()).row();
            this.executions.put(lease.taskId(), released(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                    row.function(), row.arguments(), ExecutionStatus.CANCELLED, resultJson, errorJson, row.attempt(),
                    row.retriesUsed(), null, row.createdAt(), now, row.parentTaskId())));
            wakeParent(lease.taskId(), now);
            return null;
        });
    }

    @Override
    public synchronized List<String> runningChildren(String taskId) {
        return this.executions.values().stream()
            .map(Held::row)
            .filter((row) -> taskId.equals(row.parentTaskId()) && !row.status().isTerminal())
            .map(ExecutionRow::taskId)
            .toList();
    }

    @Override
    public synchronized boolean resume(String taskId, long now) {
        Held held = this.executions.get(taskId);
        if (held == null || held.row().status() != ExecutionStatus.FAILED) {
            return false;
        }
        ExecutionRow row = held.row();
        this.executions.put(taskId, released(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                row.function(), row.arguments(), ExecutionStatus.PENDING, row.result(), null, row.attempt() + 1, 0,
                now, row.createdAt(), now, row.parentTaskId())));
        dropLastFailedCommand(taskId);
        return true;
    }

    @Override
    public synchronized void release(Lease lease, long now) {
        Held held = this.executions.get(lease.taskId());
        if (held != null && lease.token().equals(held.token()) && held.row().status() == ExecutionStatus.RUNNING) {
            this.executions.put(lease.taskId(), released(with(held.row(), ExecutionStatus.PENDING, now, now)));
        }
    }

    @Override
    public synchronized Map<String, Long> counts(String workload, String version, long now) {
        Map<String, Long> counts = new LinkedHashMap<>();
        for (ExecutionStatus status : ExecutionStatus.values()) {
            counts.put(status.name(), 0L);
        }
        long ready = 0;
        for (Held held : this.executions.values()) {
            if (held.row().workload().equals(workload) && held.row().version().equals(version)) {
                counts.merge(held.row().status().name(), 1L, Long::sum);
                if (isDue(held, now)) {
                    ready++;
                }
            }
        }
        counts.put("READY", ready);
        return counts;
    }

    // ---------------------------------------------------------------- what tests read and do

    /** The execution as stored; fails when there is none. */
    synchronized ExecutionRow execution(String taskId) {
        return Objects.requireNonNull(this.executions.get(taskId), () -> "no execution '" + taskId + "'").row();
    }

    /** Its steps, by position. */
    synchronized List<StepRow> steps(String taskId) {
        return List.copyOf(stepsOf(taskId).values());
    }

    /** Its attempts, by position, function attempt and number (function attempts first: position -1). */
    synchronized List<AttemptRow> attempts(String taskId) {
        return this.attempts.stream()
            .filter((attempt) -> attempt.taskId().equals(taskId))
            .sorted(Comparator.comparingInt(AttemptRow::position).thenComparingInt(AttemptRow::functionAttempt)
                .thenComparingInt(AttemptRow::number))
            .toList();
    }

    /** The events fired at it, in order of arrival. */
    synchronized List<EventRow> events(String taskId) {
        return this.events.stream().map(KeptEvent::row).filter((event) -> event.taskId().equals(taskId)).toList();
    }

    /** The token of the lease that holds the execution now, or {@code null}. */
    synchronized @Nullable String leaseToken(String taskId) {
        Held held = this.executions.get(taskId);
        return (held != null) ? held.token() : null;
    }

    // ---------------------------------------------------------------- the rules every write follows

    private void requireLease(Lease lease, long now, long leaseUntil) {
        if (!fence(lease, now, leaseUntil)) {
            throw new LeaseLostException(lease.taskId());
        }
    }

    /** As the JDBC store: the lease holds while the execution is RUNNING under its token; the write extends it. */
    private boolean fence(Lease lease, long now, long leaseUntil) {
        Held held = this.executions.get(lease.taskId());
        if (held == null || !lease.token().equals(held.token()) || held.row().status() != ExecutionStatus.RUNNING) {
            return false;
        }
        ExecutionRow row = held.row();
        this.executions.put(lease.taskId(), new Held(with(row, row.status(), row.nextRunAt(), now), held.owner(),
                held.token(), leaseUntil));
        return true;
    }

    private boolean heldByAnother(Lease lease) {
        Held held = this.executions.get(lease.taskId());
        return held != null && held.token() != null && !lease.token().equals(held.token());
    }

    /** Inserts the step, or completes the PENDING step of the same kind at its position. */
    private void writeStep(StepRow step) {
        TreeMap<Integer, StepRow> recorded = stepsOf(step.taskId());
        StepRow existing = recorded.get(step.position());
        if (existing != null && StepRow.PENDING.equals(existing.status()) && existing.kind().equals(step.kind())) {
            recorded.put(step.position(), new StepRow(existing.taskId(), existing.position(), existing.kind(),
                    existing.name(), existing.arguments(), step.status(), step.result(), step.error(),
                    existing.idempotencyKey(), existing.functionAttempt(), existing.startedAt(), step.completedAt(),
                    existing.childTaskId()));
            return;
        }
        if (existing != null) {
            throw new StoreStatementException("duplicate step " + step.position() + " of " + step.taskId()
                    + ": the history has " + existing.kind() + " '" + existing.name() + "' (" + existing.status()
                    + ") there", null);
        }
        recorded.put(step.position(), step);
    }

    private void insertAttempt(AttemptRow attempt) {
        boolean duplicate = this.attempts.stream().anyMatch((other) -> other.taskId().equals(attempt.taskId())
                && other.position() == attempt.position() && other.functionAttempt() == attempt.functionAttempt()
                && other.number() == attempt.number());
        if (duplicate) {
            throw new StoreStatementException("duplicate attempt " + attempt.number() + " of position "
                    + attempt.position() + " in function attempt " + attempt.functionAttempt() + " of "
                    + attempt.taskId(), null);
        }
        this.attempts.add(attempt);
    }

    private TreeMap<Integer, StepRow> stepsOf(String taskId) {
        return this.steps.computeIfAbsent(taskId, (id) -> new TreeMap<>());
    }

    /** Runs the work as one transaction: on any exception the store is as it was before. */
    private <T> T transaction(Supplier<T> work) {
        Map<String, Held> executions = new LinkedHashMap<>(this.executions);
        Map<String, TreeMap<Integer, StepRow>> steps = new HashMap<>();
        this.steps.forEach((taskId, rows) -> steps.put(taskId, new TreeMap<>(rows)));
        List<AttemptRow> attempts = new ArrayList<>(this.attempts);
        List<KeptEvent> events = new ArrayList<>(this.events);
        long lastEventId = this.lastEventId;
        Map<String, Set<Tag>> tags = new HashMap<>();
        this.tags.forEach((taskId, of) -> tags.put(taskId, new java.util.LinkedHashSet<>(of)));
        try {
            return work.get();
        }
        catch (RuntimeException ex) {
            this.tags = tags;
            this.executions = executions;
            this.steps = steps;
            this.attempts = attempts;
            this.events = events;
            this.lastEventId = lastEventId;
            throw ex;
        }
    }

    private static ExecutionRow with(ExecutionRow row, ExecutionStatus status, @Nullable Long nextRunAt,
            long updatedAt) {
        return new ExecutionRow(row.taskId(), row.workload(), row.version(), row.function(), row.arguments(), status,
                row.result(), row.error(), row.attempt(), row.retriesUsed(), nextRunAt, row.createdAt(), updatedAt,
                row.parentTaskId());
    }

    private static Held released(ExecutionRow row) {
        return new Held(row, null, null, null);
    }

    /** An execution with its lease columns. */
    private record Held(ExecutionRow row, @Nullable String owner, @Nullable String token, @Nullable Long leaseUntil) {
    }

    /** An event with the key that makes a repeated fire keep no second one. */
    private record KeptEvent(EventRow row, String key) {
    }
}
