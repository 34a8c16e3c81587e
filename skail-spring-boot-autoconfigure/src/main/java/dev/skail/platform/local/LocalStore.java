package dev.skail.platform.local;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;
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
import dev.skail.platform.ScheduleRow;
import dev.skail.platform.ScheduleStore;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreConflicts;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import dev.skail.platform.TaggedExecution;
import dev.skail.platform.jdbc.H2PreallocatedFilePath;
import dev.skail.platform.jdbc.JdbcExecutionStore;
import dev.skail.platform.local.Rows.Event;
import dev.skail.platform.local.Rows.Execution;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.type.ByteArrayDataType;
import org.h2.mvstore.type.StringDataType;
import org.jspecify.annotations.Nullable;

/**
 * The embedded platform's store kept by skail itself, without SQL: its records in maps of H2's storage engine
 * (MVStore), in one file that only this process opens, or in memory. The same rules as the JDBC store on H2 (see
 * {@link JdbcExecutionStore}): fenced writes, a step recorded once at its position, the same claims in the same
 * order, the same history; what differs is how a write is made.
 * <p>
 * <b>A write</b> is one operation of this interface. It takes the store's write lock, reads what it needs, and
 * changes the maps; a failure (a lease lost, a step taken by another) undoes what it changed before the lock is
 * released, so no other operation sees half of one. Reads take the read lock: they see whole operations.
 * <p>
 * <b>Durability.</b> Every write appends its changes of the maps to a log ({@link RedoLog}), in the order the maps took
 * them. A write that acknowledges something (a trigger, a step, an event, an end) returns only once its record is
 * forced: the writes waiting together share one force (group commit across executions). A claim, a lease renewal and a
 * heartbeat acknowledge nothing and do not wait (lost, they are only done again), though their records are forced with
 * the next write that waits. A reader may see a write before it is forced; anything it then writes is after it in the
 * log. In memory, there is no log and nothing waits.
 * <p>
 * <b>Checkpoints.</b> Once a second, when anything was written, the maps are stored as one chunk of their file with the
 * log position they hold everything before (under the write lock: a chunk holds whole operations only; its emptiest
 * chunks rewritten first while the file is less than {@value #TARGET_FILL_RATE} % live). Once the log holds more than
 * {@value #RESTART_BYTES} bytes, the chunk is forced and the log starts again. After a crash, H2's storage engine opens
 * the maps at their last whole chunk, and the log's records from its position on are applied again: each record is the
 * values its write left (or their removal), so applying one again changes nothing.
 * <p>
 * Public as the auto-configuration's store; not an API of skail.
 */
public final class LocalStore implements ExecutionStore, AutoCloseable {

    private static final Log logger = LogFactory.getLog(LocalStore.class);

    /** The name of the store's file in its directory. */
    public static final String FILE_NAME = "skail-store" + org.h2.engine.Constants.SUFFIX_MV_FILE;

    private static final byte[] EMPTY = { Rows.FORMAT };

    /** How far {@code updated_at} may lag behind the last step of a running execution (as the JDBC store's). */
    private static final long UPDATED_AT_GRANULARITY_MILLIS = 1000;

    /** The kinds of due work, in the order of the JDBC store's claims: PENDING, WAITING, RUNNING (lease ended). */
    private static final int KINDS = 3;

    private final @Nullable Path file;

    private final MVStore store;

    /** taskId → the execution with its lease. */
    private final MVMap<String, byte[]> executions;

    /** task, position → step. */
    private final MVMap<String, byte[]> steps;

    /** task, position, function attempt, number → attempt. */
    private final MVMap<String, byte[]> attempts;

    /** task, id → event. */
    private final MVMap<String, byte[]> events;

    /** task, key, value → nothing: the tags of each execution. */
    private final MVMap<String, byte[]> tags;

    /** key, value, task → nothing: the executions of each tag. */
    private final MVMap<String, byte[]> tagged;

    /** workload, version, kind, due time, task → nothing: what is due, and when. */
    private final MVMap<String, byte[]> due;

    /** creation time, task → nothing: the executions, newest last. */
    private final MVMap<String, byte[]> created;

    /** end time, task → nothing: the ended executions, oldest end first (retention). */
    private final MVMap<String, byte[]> ended;

    /** workload, version, status → how many executions. */
    private final MVMap<String, byte[]> counted;

    /** instance → its heartbeat. */
    private final MVMap<String, byte[]> runtimes;

    /** workload, name → schedule. */
    private final MVMap<String, byte[]> schedules;

    /** The next event id, and the store's format. */
    private final MVMap<String, byte[]> meta;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    /** The maps a record names, by their index here: the log's format (new maps go at the end). */
    private final List<MVMap<String, byte[]>> logged;

    private final Map<MVMap<String, byte[]>, Integer> ids = new java.util.IdentityHashMap<>();

    /** The log of a store in a file; {@code null} in memory. Set once, when the file is opened. */
    private volatile @Nullable RedoLog log;

    /** Stores the maps now and then (see the class's comment); {@code null} in memory. */
    private @Nullable Thread checkpoints;

    /** The log position the last checkpoint stored the maps at. Guarded by the write lock. */
    private long checkpointed = -1;

    private final java.util.concurrent.atomic.AtomicLong durableWrites = new java.util.concurrent.atomic.AtomicLong();

    private volatile boolean closed;

    /** Whether {@link #close()} leaves the store open (a named store in memory). */
    private final boolean kept;

    /** Which kind of due work a claim takes first, in turns. */
    private int turns;

    private LocalStore(@Nullable Path file, MVStore store, boolean kept) {
        this.file = file;
        this.kept = kept;
        this.store = store;
        this.executions = map(store, "execution");
        this.steps = map(store, "step");
        this.attempts = map(store, "attempt");
        this.events = map(store, "event");
        this.tags = map(store, "tag");
        this.tagged = map(store, "tagged");
        this.due = map(store, "due");
        this.created = map(store, "created");
        this.counted = map(store, "counted");
        this.runtimes = map(store, "runtime");
        this.schedules = map(store, "schedule");
        this.meta = map(store, "meta");
        this.ended = map(store, "ended");
        this.logged = List.of(this.executions, this.steps, this.attempts, this.events, this.tags, this.tagged, this.due,
                this.created, this.counted, this.runtimes, this.schedules, this.meta, this.ended);
        for (int id = 0; id < this.logged.size(); id++) {
            this.ids.put(this.logged.get(id), id);
        }
    }

    /** A map of the store: strings to bytes, each written by its own type (no class names in the file). */
    private static MVMap<String, byte[]> map(MVStore store, String name) {
        return store.openMap(name, new MVMap.Builder<String, byte[]>().keyType(StringDataType.INSTANCE)
            .valueType(ByteArrayDataType.INSTANCE));
    }

    /**
     * Opens the store in {@code file} (created when missing), which this process then owns until {@link #close()}.
     * @throws StoreUnavailableException if the file cannot be opened (another process has it, or it is unreadable)
     */
    public static LocalStore open(Path file) {
        return open(file, H2PreallocatedFilePath.fileName(file), FileChannel::open);
    }

    /**
     * {@link #open(Path)} with the maps' file opened by H2 as {@code mapsFileName} (a name of H2's file systems) and
     * the log's by {@code logs}: tests open both through channels that keep what a power loss would.
     */
    static LocalStore open(Path file, String mapsFileName, RedoLog.Opener logs) {
        try {
            MVStore store = new MVStore.Builder().fileName(mapsFileName)
                .autoCommitDisabled()
                // nor a chunk stored by a writing thread once enough is unsaved: chunks are the group commit's only
                .autoCommitBufferSize(0)
                .open();
            // a chunk's space is written over a second after it died (the file system forces the newer chunks first)
            store.setRetentionTime(1000);
            LocalStore local = new LocalStore(file, store, false);
            try {
                byte[] stored = local.meta.get(LOG_POSITION);
                RedoLog log = RedoLog.open(RedoLog.next(file), (stored != null) ? Rows.number(stored) : -1,
                        local::replay, logs);
                local.log = log;
                if (local.replayed > 0) {
                    logger.info("skail store: " + local.replayed + " write(s) after the maps' last checkpoint applied "
                            + "again from the log");
                }
                // the maps stored and forced with what the log held, and the log started again, by the checkpoints'
                // thread at once: not on the thread that opens the store (the application's start)
                local.startCheckpoints();
                return local;
            }
            catch (RuntimeException ex) {
                RedoLog opened = local.log;
                if (opened != null) {
                    try {
                        opened.close();
                    }
                    catch (java.io.IOException closing) {
                        ex.addSuppressed(closing);
                    }
                }
                store.closeImmediately();
                throw ex;
            }
        }
        catch (RuntimeException ex) {
            throw new StoreUnavailableException("skail store: cannot open " + file + ": " + ex.getMessage(), ex);
        }
    }

    /** The meta entry of the log position the stored maps hold everything before. */
    private static final String LOG_POSITION = "log-position";

    /** The fill rate of the maps' file under which a checkpoint rewrites its emptiest chunks first, in percent. */
    static final int TARGET_FILL_RATE = 60;

    /** How much of the emptiest chunks a checkpoint rewrites at most, in bytes. */
    private static final int COMPACT_BYTES = 1 << 20;

    /** How many bytes of records make the next checkpoint force the maps and start the log again. */
    static final long RESTART_BYTES = 8L << 20;

    private static final long CHECKPOINT_MILLIS = 1000;

    /** How many records of the log were applied to the maps when the file was opened (after a crash). */
    private long replayed;

    long replayed() {
        return this.replayed;
    }

    /** Applies one record of the log to the maps, as its write left them. */
    private void replay(java.nio.ByteBuffer record) {
        this.replayed++;
        byte[] changes = new byte[record.remaining()];
        record.get(changes);
        Rows.Reader in = new Rows.Reader(changes);
        while (!in.atEnd()) {
            MVMap<String, byte[]> map = this.logged.get((int) in.number());
            String key = in.required();
            byte[] value = in.bytes();
            if (value == null) {
                map.remove(key);
            }
            else {
                map.put(key, value);
            }
        }
    }

    /**
     * Stores the maps as one chunk with the log position they hold everything before, when anything was written since
     * the last time, and forces it; with {@code restart} (or once the log is long, or after a force of the log
     * failed), starts the log again too.
     * @return whether the maps were stored (not when put off for want of room, or when the store is closed)
     */
    private boolean checkpoint(boolean restart) {
        Checkpoint done;
        this.lock.writeLock().lock();
        try {
            if (this.closed) {
                return false;
            }
            done = checkpointLocked(restart);
        }
        finally {
            this.lock.writeLock().unlock();
        }
        if (done == Checkpoint.STORED) {
            // the chunk on the device (outside the lock: writes go on meanwhile), so that a power loss tears at most
            // the one being written
            this.store.getFileStore().sync();
        }
        return done != Checkpoint.PUT_OFF;
    }

    /** What a checkpoint did. */
    private enum Checkpoint {

        /** Nothing to store, or no room to store it. */
        PUT_OFF,

        /** A chunk stored, not forced yet. */
        STORED,

        /** A chunk stored and forced, and the log started again. */
        RESTARTED
    }

    /** {@link #checkpoint}'s work under the write lock: the chunk holds whole operations only. */
    private Checkpoint checkpointLocked(boolean restart) {
        RedoLog redo = Objects.requireNonNull(this.log);
        long position = redo.end();
        boolean restarting = restart || redo.size() >= RESTART_BYTES || redo.forceFailed();
        if (position == this.checkpointed && !restarting) {
            return Checkpoint.PUT_OFF;
        }
        if (!hasRoom(CHECKPOINT_ROOM_BYTES)) {
            // a chunk that H2 cannot write would close its store: put off while the disk is nearly full (the log
            // holds every write meanwhile)
            return Checkpoint.PUT_OFF;
        }
        // when the log starts again, at a position no record of the file can state
        long stored = restarting ? redo.nextBase() : position;
        this.meta.put(LOG_POSITION, Rows.number(stored));
        if (this.store.getFillRate() < TARGET_FILL_RATE) {
            this.store.compact(TARGET_FILL_RATE, COMPACT_BYTES);
        }
        this.store.commit();
        this.checkpointed = position;
        if (!restarting) {
            return Checkpoint.STORED;
        }
        try {
            this.store.getFileStore().sync();
        }
        catch (RuntimeException ex) {
            // the chunk may or may not be on the device, as of a position the log does not start at yet
            redo.failed(new java.io.IOException("the store's maps could not be forced: " + ex.getMessage(), ex));
            throw ex;
        }
        redo.restart(stored);
        this.checkpointed = stored;
        return Checkpoint.RESTARTED;
    }

    /**
     * Stores and forces the maps and starts the log again, or fails: what a copy into a new store (the migration of
     * an H2 file) needs before it calls the new store whole.
     */
    void checkpointOrFail() {
        if (!checkpoint(true)) {
            throw new IllegalStateException("skail store: " + this.file + " could not be stored (its disk has less "
                    + "than " + CHECKPOINT_ROOM_BYTES + " bytes free)");
        }
    }

    /** Wakes the checkpoints' thread when the store closes (never interrupted: H2 would close its file). */
    private final Object checkpointsWake = new Object();

    private void startCheckpoints() {
        Thread thread = new Thread(() -> {
            // first at once, starting the log again: what it held at open is then in the stored maps
            boolean first = true;
            while (!this.closed) {
                try {
                    if (!first) {
                        synchronized (this.checkpointsWake) {
                            if (!this.closed) {
                                this.checkpointsWake.wait(CHECKPOINT_MILLIS);
                            }
                        }
                    }
                    if (!this.closed) {
                        boolean restart = first;
                        first = false;
                        checkpoint(restart);
                    }
                }
                catch (InterruptedException ex) {
                    return;
                }
                catch (RuntimeException ex) {
                    logger.warn("skail store: storing the maps of " + this.file + " failed (tried again in "
                            + CHECKPOINT_MILLIS + " ms; the log keeps every write meanwhile): " + ex.getMessage(), ex);
                }
            }
        }, "skail-store-checkpoints");
        thread.setDaemon(true);
        this.checkpoints = thread;
        thread.start();
    }

    /** A store in memory: nothing survives the process (tests, trials). */
    public static LocalStore inMemory() {
        return new LocalStore(null, new MVStore.Builder().autoCommitDisabled().autoCommitBufferSize(0).open(), false);
    }

    /** The named stores in memory of this process, kept until it ends (see {@link #inMemory(String)}). */
    private static final java.util.concurrent.ConcurrentMap<String, LocalStore> NAMED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The store in memory of that name in this process, created at first use and kept until the process ends, as an
     * H2 database in memory with {@code DB_CLOSE_DELAY=-1}: an application started again in the same process (a test's
     * new context) finds what it recorded. {@link #close()} leaves it open.
     */
    public static LocalStore inMemory(String name) {
        return NAMED.computeIfAbsent(name, (any) -> new LocalStore(null,
                new MVStore.Builder().autoCommitDisabled().autoCommitBufferSize(0).open(), true));
    }

    /** The store's file, or {@code null} in memory. */
    public @Nullable Path file() {
        return this.file;
    }

    /**
     * How durable the store's writes were made so far: the writes that waited for the disk before they returned, the
     * forces ({@code fdatasync}) that made them durable, and the forces the file made besides them, before a chunk was
     * written over space written before (see {@link H2PreallocatedFilePath}). All zero in memory.
     */
    public Syncs syncs() {
        RedoLog redo = this.log;
        return new Syncs(this.durableWrites.get(), (redo != null) ? redo.forces() : 0,
                (this.file != null) ? H2PreallocatedFilePath.barrierForces(H2PreallocatedFilePath.fileName(this.file))
                        : 0);
    }

    /**
     * @param durableWrites the writes that returned once on disk
     * @param forces the group commits' forces
     * @param barrierForces the forces before space was written over
     */
    public record Syncs(long durableWrites, long forces, long barrierForces) {
    }

    /** The schedules, kept in this store. */
    public ScheduleStore scheduleStore() {
        return new Schedules();
    }

    /**
     * In a file that only this process opens, every RUNNING execution was left so by a process that ended: their leases
     * end now, so that they are taken back at once rather than a lease later.
     */
    @Override
    public void initialize() {
        if (this.file == null) {
            return;
        }
        int expired = write(false, (tx) -> {
            // the leases are in the index of due work (an execution that ended, or waits, is not read: a start reads
            // what runs, not the whole history kept); every write that makes an execution running gives it a lease
            List<Execution> running = new ArrayList<>();
            for (java.util.Iterator<String> keys = this.due.keyIterator(null); keys.hasNext();) {
                String taskId = leasedTaskId(keys.next());
                byte[] value = (taskId != null) ? this.executions.get(taskId) : null;
                Execution execution = (value != null) ? Rows.execution(value) : null;
                // the row itself decides: the index names what to read
                if (execution != null && execution.status() == ExecutionStatus.RUNNING
                        && !Objects.equals(execution.leaseUntil(), 0L)) {
                    running.add(execution);
                }
            }
            for (Execution execution : running) {
                putExecution(tx, execution, execution.withLease(execution.leaseOwner(), execution.leaseToken(), 0L));
            }
            return running.size();
        });
        if (expired > 0) {
            logger.info("skail store: " + expired + " execution(s) left running by a process that ended are taken "
                    + "back now");
        }
    }

    /**
     * The store is open, and its disk has room: once a write failed for want of space, the store is unavailable (the
     * reason named) until the file system has room again, when the next write finds out.
     */
    @Override
    public void check() {
        ensureOpen();
        String full = this.diskFull;
        if (full != null) {
            if (!hasRoom()) {
                throw new StoreUnavailableException("skail store could not answer a probe: " + full, null);
            }
            this.diskFull = null;
        }
    }

    private void ensureOpen() {
        if (this.closed || this.store.isClosed()) {
            throw new StoreUnavailableException("skail store: closed", new IllegalStateException("closed"));
        }
    }

    /** Why the store's disk is full, since the last write that failed for it and until it has room again. */
    private volatile @Nullable String diskFull;

    /** Free space on the store's file system below which a disk found full is still full. */
    static final long ROOM_BYTES = 256 * 1024;

    /**
     * Free space below which a checkpoint is put off (the log keeps everything meanwhile): a chunk H2 cannot write
     * would close its store.
     */
    static final long CHECKPOINT_ROOM_BYTES = 4L << 20;

    private boolean hasRoom() {
        return hasRoom(ROOM_BYTES);
    }

    private boolean hasRoom(long bytes) {
        Path where = this.file;
        if (where == null) {
            return true;
        }
        try {
            return java.nio.file.Files.getFileStore(where.toAbsolutePath().getParent()).getUsableSpace() >= bytes;
        }
        catch (java.io.IOException | RuntimeException ex) {
            return true;
        }
    }

    @Override
    public void close() {
        if (this.kept) {
            return;
        }
        RedoLog redo = this.log;
        this.lock.writeLock().lock();
        try {
            if (this.closed) {
                return;
            }
            // in one hold of the lock: no write comes between the last checkpoint and the close
            this.closed = true;
            boolean whole = false;
            if (redo != null) {
                try {
                    // the maps stored and forced with all the log holds: the next start applies nothing
                    whole = checkpointLocked(true) == Checkpoint.RESTARTED;
                    if (!whole) {
                        // put off for want of room: the log forced whole, so that the next start applies all of it
                        redo.awaitDurable(redo.end());
                        whole = true;
                    }
                }
                catch (RuntimeException ex) {
                    logger.warn("skail store: storing the maps of " + this.file + " at close failed (the next start "
                            + "applies the log): " + ex.getMessage(), ex);
                }
                redo.close();
            }
            if (whole || redo == null) {
                this.store.close();
            }
            else {
                // maps ahead of a log that may not be whole on the device must not be stored
                this.store.closeImmediately();
            }
        }
        catch (java.io.IOException | RuntimeException ex) {
            logger.warn("skail store: closing " + this.file + " failed: " + ex.getMessage(), ex);
        }
        finally {
            this.lock.writeLock().unlock();
        }
        synchronized (this.checkpointsWake) {
            this.checkpointsWake.notifyAll();
        }
        Thread thread = this.checkpoints;
        if (thread != null) {
            try {
                thread.join(10_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // executions

    @Override
    public Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags) {
        return create(execution, tags, null, 0);
    }

    @Override
    public Created createClaimed(ExecutionRow execution, List<Tag> tags, Lease lease, long leaseUntil) {
        Optional<ExecutionRow> existing = create(execution, tags, lease, leaseUntil);
        return new Created(existing, existing.isEmpty());
    }

    /**
     * Inserts the execution with its tags: as it is (PENDING, due), or RUNNING under {@code lease}. When the id is
     * taken, the execution that has it; a claimed create retried after a lost acknowledgement finds its own.
     */
    private Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags, @Nullable Lease lease,
            long leaseUntil) {
        return write(true, (tx) -> {
            Execution existing = execution(execution.taskId());
            if (existing != null) {
                if (lease != null && lease.token().equals(existing.leaseToken())) {
                    return Optional.<ExecutionRow>empty();
                }
                return Optional.of(existing.row());
            }
            Execution created = (lease == null) ? new Execution(execution, null, null, null)
                    : new Execution(withStatus(execution, ExecutionStatus.RUNNING), lease.owner(), lease.token(),
                            leaseUntil);
            putExecution(tx, null, created);
            insertTags(tx, execution.taskId(), tags);
            return Optional.<ExecutionRow>empty();
        });
    }

    @Override
    public Optional<ExecutionRow> find(String taskId) {
        return read(() -> Optional.ofNullable(execution(taskId)).map(Execution::row));
    }

    @Override
    public Optional<TaggedExecution> findTagged(String taskId) {
        return read(() -> {
            Execution execution = execution(taskId);
            return (execution != null) ? Optional.of(new TaggedExecution(execution.row(), tagsOf(taskId)))
                    : Optional.<TaggedExecution>empty();
        });
    }

    @Override
    public Optional<StoredHistory> history(String taskId) {
        return read(() -> {
            Execution execution = execution(taskId);
            if (execution == null) {
                return Optional.<StoredHistory>empty();
            }
            List<StepRow> stepRows = stepsOf(taskId);
            List<AttemptRow> attemptRows = new ArrayList<>();
            forEach(this.attempts, Rows.part(taskId), (key, value) -> attemptRows.add(Rows.attempt(value)));
            List<EventRow> eventRows = eventsOf(taskId).stream().map(Event::row).toList();
            return Optional.of(new StoredHistory(execution.row(), stepRows,
                    JdbcExecutionStore.withImpliedAttempts(stepRows, attemptRows), eventRows));
        });
    }

    @Override
    public List<ExecutionRow> search(SkailQuery query, long offset, int limit) {
        return scan(() -> {
            List<ExecutionRow> page = new ArrayList<>();
            long skip = Math.max(0, offset);
            int size = Math.max(1, limit);
            for (ExecutionRow row : matching(query, true)) {
                if (skip > 0) {
                    skip--;
                    continue;
                }
                page.add(row);
                if (page.size() == size) {
                    break;
                }
            }
            return page;
        });
    }

    @Override
    public Map<ExecutionStatus, Long> countByStatus(SkailQuery query) {
        return scan(() -> {
            Map<ExecutionStatus, Long> counts = new EnumMap<>(ExecutionStatus.class);
            for (ExecutionStatus status : ExecutionStatus.values()) {
                counts.put(status, 0L);
            }
            for (ExecutionRow row : matching(query, false)) {
                counts.merge(row.status(), 1L, Long::sum);
            }
            return counts;
        });
    }

    /**
     * The executions the query's filters select, newest first (then by id, descending), read lazily: through the
     * executions of its first tag when it has one, otherwise through all of them by creation time.
     * @param statuses whether the query's statuses filter too
     */
    private Iterable<ExecutionRow> matching(SkailQuery query, boolean statuses) {
        long createdFrom = (query.createdFrom() != null)
                ? JdbcExecutionStore.millisAtOrAfter(Objects.requireNonNull(query.createdFrom())) : Long.MIN_VALUE;
        long createdTo = (query.createdTo() != null)
                ? JdbcExecutionStore.millisAtOrAfter(Objects.requireNonNull(query.createdTo())) : Long.MAX_VALUE;
        long updatedFrom = (query.updatedFrom() != null)
                ? JdbcExecutionStore.millisAtOrAfter(Objects.requireNonNull(query.updatedFrom())) : Long.MIN_VALUE;
        long updatedTo = (query.updatedTo() != null)
                ? JdbcExecutionStore.millisAtOrAfter(Objects.requireNonNull(query.updatedTo())) : Long.MAX_VALUE;
        java.util.function.Predicate<ExecutionRow> filter = (row) -> (query.function() == null
                || query.function().equals(row.function()))
                && (!statuses || query.statuses().isEmpty() || query.statuses().contains(row.status()))
                && row.createdAt() >= createdFrom && row.createdAt() < createdTo && row.updatedAt() >= updatedFrom
                && row.updatedAt() < updatedTo
                && (query.idContaining() == null || row.taskId().contains(Objects.requireNonNull(query.idContaining())))
                && query.tags().stream().allMatch((tag) -> this.tags.containsKey(tagKey(row.taskId(), tag.key(),
                        tag.value())));
        if (!query.tags().isEmpty()) {
            SkailQuery.Tag first = query.tags().get(0);
            List<ExecutionRow> rows = new ArrayList<>();
            String prefix = Rows.part(first.key()) + Rows.part(first.value());
            forEach(this.tagged, prefix, (key, value) -> {
                Execution execution = execution(key.substring(prefix.length()));
                if (execution != null && filter.test(execution.row())) {
                    rows.add(execution.row());
                }
            });
            rows.sort(Comparator.comparingLong(ExecutionRow::createdAt).thenComparing(ExecutionRow::taskId)
                .reversed());
            return rows;
        }
        String from = (createdTo == Long.MAX_VALUE) ? null : Rows.sortable(createdTo);
        return () -> new java.util.Iterator<ExecutionRow>() {

            private final java.util.Iterator<String> keys = (from != null) ? this.reverseFrom(from)
                    : LocalStore.this.created.keyIteratorReverse(null);

            private @Nullable ExecutionRow next = advance();

            private java.util.Iterator<String> reverseFrom(String bound) {
                String below = LocalStore.this.created.lowerKey(bound);
                return (below != null) ? LocalStore.this.created.keyIteratorReverse(below)
                        : java.util.Collections.emptyIterator();
            }

            private @Nullable ExecutionRow advance() {
                while (this.keys.hasNext()) {
                    String key = this.keys.next();
                    if (Rows.longOf(key.substring(0, 16)) < createdFrom) {
                        return null;
                    }
                    Execution execution = execution(key.substring(16));
                    if (execution != null && filter.test(execution.row())) {
                        return execution.row();
                    }
                }
                return null;
            }

            @Override
            public boolean hasNext() {
                return this.next != null;
            }

            @Override
            public ExecutionRow next() {
                ExecutionRow row = Objects.requireNonNull(this.next);
                this.next = advance();
                return row;
            }
        };
    }

    @Override
    public Map<String, List<Tag>> tags(Collection<String> taskIds) {
        if (taskIds.isEmpty()) {
            return Map.of();
        }
        return read(() -> {
            Map<String, List<Tag>> found = new LinkedHashMap<>();
            for (String taskId : new TreeSet<>(taskIds)) {
                List<Tag> of = tagsOf(taskId);
                if (!of.isEmpty()) {
                    found.put(taskId, of);
                }
            }
            return found;
        });
    }

    @Override
    public void tag(Lease lease, Tag tag, long now, long leaseUntil) {
        write(true, (tx) -> {
            requireLease(tx, lease, now, leaseUntil);
            insertTags(tx, lease.taskId(), List.of(tag));
            return null;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // claims and leases

    /**
     * What is due, as the JDBC store claims it: at most {@code limit} of each kind (PENDING and WAITING due by
     * {@code now}, RUNNING whose lease ended before it), in the order they fell due, taken rank by rank, the kind that
     * goes first in a rank rotating from one claim to the next. Each is RUNNING under a new lease when this returns.
     * Not durable: lost, the executions are only due again.
     */
    @Override
    public List<Lease> claimDue(String workload, String version, String owner, int limit, long now, long leaseUntil,
            Set<String> exclude) {
        return write(false, (tx) -> {
            int turn = Math.floorMod(this.turns++, KINDS);
            List<List<String>> kinds = new ArrayList<>();
            for (int kind = 0; kind < KINDS; kind++) {
                kinds.add(dueOf(workload, version, kind, (kind == 2) ? now - 1 : now, limit, exclude));
            }
            List<String> taken = new ArrayList<>();
            for (int rank = 0; taken.size() < limit && rank < limit; rank++) {
                for (int i = 0; i < KINDS && taken.size() < limit; i++) {
                    // ORDER BY turn, MOD(kind + turn, 3): the kind whose (kind + turn) mod 3 is least goes first
                    int kind = Math.floorMod(i - turn, KINDS);
                    List<String> ofKind = kinds.get(kind);
                    if (rank < ofKind.size()) {
                        taken.add(ofKind.get(rank));
                    }
                }
            }
            List<Lease> leases = new ArrayList<>(taken.size());
            for (String taskId : taken) {
                Execution execution = Objects.requireNonNull(execution(taskId));
                String token = UUID.randomUUID().toString();
                putExecution(tx, execution, new Execution(withStatus(execution.row(), ExecutionStatus.RUNNING,
                        execution.row().nextRunAt(), now), owner, token, leaseUntil));
                leases.add(new Lease(taskId, owner, token));
            }
            return leases;
        });
    }

    /** The due executions of one kind, due at or before {@code by}, in the order they fell due. */
    private List<String> dueOf(String workload, String version, int kind, long by, int limit, Set<String> exclude) {
        String prefix = duePrefix(workload, version, kind);
        List<String> found = new ArrayList<>();
        for (java.util.Iterator<String> keys = this.due.keyIterator(prefix); keys.hasNext() && found.size() < limit;) {
            String key = keys.next();
            if (!key.startsWith(prefix) || Rows.longOf(key.substring(prefix.length(), prefix.length() + 16)) > by) {
                break;
            }
            String taskId = key.substring(prefix.length() + 16);
            if (!exclude.contains(taskId)) {
                found.add(taskId);
            }
        }
        return found;
    }

    @Override
    public List<Lease> renew(List<Lease> leases, long now, long leaseUntil) {
        return write(false, (tx) -> {
            List<Lease> lost = new ArrayList<>();
            for (Lease lease : leases) {
                Execution execution = execution(lease.taskId());
                if (execution != null && execution.status() == ExecutionStatus.RUNNING
                        && lease.token().equals(execution.leaseToken())) {
                    putExecution(tx, execution, execution.withLease(execution.leaseOwner(), execution.leaseToken(),
                            leaseUntil));
                }
                else if (execution != null && execution.leaseToken() != null
                        && !lease.token().equals(execution.leaseToken())) {
                    lost.add(lease);
                }
            }
            return lost;
        });
    }

    @Override
    public void release(Lease lease, long now) {
        write(true, (tx) -> {
            Execution execution = execution(lease.taskId());
            if (held(execution, lease)) {
                putExecution(tx, execution, new Execution(withStatus(execution.row(), ExecutionStatus.PENDING, now, now),
                        null, null, null));
            }
            return null;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // steps

    @Override
    public void recordStep(Lease lease, StepRow step, @Nullable AttemptRow attempt, long now, long leaseUntil) {
        recordSteps(lease, List.of(step), attempt, now, leaseUntil);
    }

    @Override
    public void recordSteps(Lease lease, List<StepRow> steps, @Nullable AttemptRow attempt, long now,
            long leaseUntil) {
        write(true, (tx) -> {
            requireLease(tx, lease, now, leaseUntil);
            for (StepRow step : steps) {
                writeStep(tx, step);
            }
            writeAttempt(tx, steps.get(steps.size() - 1), attempt);
            return null;
        });
    }

    @Override
    public void recordAttempt(Lease lease, AttemptRow attempt, long now, long leaseUntil) {
        write(true, (tx) -> {
            requireLease(tx, lease, now, leaseUntil);
            insertAttempt(tx, attempt);
            return null;
        });
    }

    @Override
    public void suspend(Lease lease, Suspend suspend, long now) {
        suspend(lease, List.of(), suspend, now, now);
    }

    @Override
    public void suspend(Lease lease, List<StepRow> steps, Suspend suspend, long now, long leaseUntil) {
        write(true, (tx) -> {
            Execution execution = endLease(tx, lease, (row) -> withStatus(row, suspend.status(), suspend.nextRunAt(),
                    now));
            if (awaitedArrived(lease.taskId(), suspend)) {
                putExecution(tx, execution, execution.with(withNextRunAt(execution.row(), now)));
            }
            for (StepRow step : steps) {
                writeStep(tx, step);
            }
            return null;
        });
    }

    /** Whether an awaited event is kept or an awaited child has ended: then the execution is due at once. */
    private boolean awaitedArrived(String taskId, Suspend suspend) {
        for (Event event : eventsOf(taskId)) {
            if (event.row().consumedPosition() == null && suspend.events().contains(event.row().name())) {
                return true;
            }
        }
        for (String child : suspend.children()) {
            Execution execution = execution(child);
            if (execution != null && execution.status().isTerminal()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void startChild(Lease lease, StepRow step, ExecutionRow child, List<Tag> childTags, long now,
            long leaseUntil) {
        write(true, (tx) -> {
            requireLease(tx, lease, now, leaseUntil);
            Execution existing = execution(child.taskId());
            if (existing == null) {
                putExecution(tx, null, new Execution(child, null, null, null));
            }
            else {
                StoreConflicts.refuseUnlike(existing.row(), child);
            }
            insertTags(tx, child.taskId(), childTags);
            writeStep(tx, step);
            return null;
        });
    }

    @Override
    public List<String> runningChildren(String taskId) {
        return read(() -> {
            List<String> children = new ArrayList<>();
            for (StepRow step : stepsOf(taskId)) {
                Execution child = (step.childTaskId() != null) ? execution(step.childTaskId()) : null;
                if (child != null && taskId.equals(child.row().parentTaskId()) && !child.status().isTerminal()) {
                    children.add(child.taskId());
                }
            }
            return children;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // events

    @Override
    public Optional<EventRow> takeEvent(Lease lease, String name, Function<EventRow, StepRow> step, long now,
            long leaseUntil) {
        return write(true, (tx) -> {
            requireLease(tx, lease, now, leaseUntil);
            List<Event> named = eventsOf(lease.taskId()).stream().filter((e) -> e.row().name().equals(name)).toList();
            Event event = named.stream().filter((e) -> e.row().consumedPosition() == null).findFirst().orElse(null);
            Event probe = event;
            if (probe == null) {
                for (Event candidate : named) {
                    if (candidate.row().consumedPosition() != null) {
                        probe = candidate;
                    }
                }
            }
            if (probe == null) {
                return Optional.<EventRow>empty();
            }
            int position = step.apply(probe.row()).position();
            Event consumed = named.stream().filter((e) -> Objects.equals(e.row().consumedPosition(), position))
                .findFirst().orElse(null);
            if (consumed != null) {
                writeStep(tx, step.apply(consumed.row()));
                return Optional.of(consumed.row());
            }
            if (event == null) {
                return Optional.<EventRow>empty();
            }
            StepRow recorded = step.apply(event.row());
            EventRow row = event.row();
            tx.put(this.events, eventKey(row.taskId(), row.id()), Rows.event(new Event(new EventRow(row.id(),
                    row.taskId(), row.name(), row.payload(), row.firedAt(), recorded.position()), event.eventKey())));
            writeStep(tx, recorded);
            return Optional.of(row);
        });
    }

    @Override
    public FireOutcome fire(String taskId, String name, @Nullable String payload, String eventKey, long now) {
        return write(true, (tx) -> fire(tx, taskId, name, payload, eventKey, now));
    }

    private FireOutcome fire(Tx tx, String taskId, String name, @Nullable String payload, String eventKey, long now) {
        Execution execution = execution(taskId);
        if (execution == null) {
            return FireOutcome.NOT_FOUND;
        }
        for (Event event : eventsOf(taskId)) {
            if (event.eventKey().equals(eventKey)) {
                return FireOutcome.FIRED;
            }
        }
        if (execution.status().isTerminal()) {
            return FireOutcome.ENDED;
        }
        byte[] next = this.meta.get("event-id");
        long id = (next != null) ? Rows.number(next) : 1;
        tx.put(this.meta, "event-id", Rows.number(id + 1));
        tx.put(this.events, eventKey(taskId, id), Rows.event(new Event(new EventRow(id, taskId, name, payload, now,
                null), eventKey)));
        if (execution.status() == ExecutionStatus.WAITING) {
            putExecution(tx, execution, execution.with(withStatus(execution.row(), ExecutionStatus.WAITING, now, now)));
        }
        return FireOutcome.FIRED;
    }

    @Override
    public CancelOutcome requestCancel(String taskId, long now) {
        return write(true, (tx) -> {
            FireOutcome fired = fire(tx, taskId, CANCEL_EVENT, null, CANCEL_EVENT, now);
            if (fired == FireOutcome.FIRED) {
                Execution execution = Objects.requireNonNull(execution(taskId));
                Long next = execution.row().nextRunAt();
                if (execution.status() == ExecutionStatus.PENDING && next != null && next > now) {
                    putExecution(tx, execution, execution.with(withStatus(execution.row(), ExecutionStatus.PENDING,
                            now, now)));
                }
            }
            return switch (fired) {
                case FIRED -> CancelOutcome.REQUESTED;
                case NOT_FOUND -> CancelOutcome.NOT_FOUND;
                case ENDED -> CancelOutcome.ENDED;
            };
        });
    }

    @Override
    public boolean cancelRequested(String taskId) {
        return read(() -> eventsOf(taskId).stream().anyMatch((event) -> CANCEL_EVENT.equals(event.row().name())));
    }

    @Override
    public void recordCancel(Lease lease, StepRow step, long now, long leaseUntil) {
        write(true, (tx) -> {
            requireLease(tx, lease, now, leaseUntil);
            String key = stepKey(step.taskId(), step.position());
            byte[] existing = this.steps.get(key);
            if (existing != null && StepRow.PENDING.equals(Rows.step(existing).status())) {
                tx.remove(this.steps, key);
            }
            writeStep(tx, step);
            return null;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // ends

    @Override
    public void scheduleFunctionRetry(Lease lease, AttemptRow attempt, Set<Integer> dropped, long nextRunAt,
            long now) {
        write(true, (tx) -> {
            endLease(tx, lease, (row) -> new ExecutionRow(row.taskId(), row.workload(), row.version(), row.function(),
                    row.arguments(), ExecutionStatus.PENDING, row.result(), row.error(), row.attempt() + 1,
                    row.retriesUsed() + 1, nextRunAt, row.createdAt(), now, row.parentTaskId()));
            insertAttempt(tx, attempt);
            for (Integer position : dropped) {
                String key = stepKey(lease.taskId(), position);
                byte[] existing = this.steps.get(key);
                if (existing != null) {
                    StepRow step = Rows.step(existing);
                    if (StepRow.FAILED.equals(step.status()) && StepRow.COMMAND.equals(step.kind())) {
                        tx.remove(this.steps, key);
                    }
                }
            }
            return null;
        });
    }

    @Override
    public void complete(Lease lease, @Nullable String resultJson, long now) {
        end(lease, ExecutionStatus.COMPLETED, resultJson, null, null, now);
    }

    @Override
    public void fail(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now) {
        end(lease, ExecutionStatus.FAILED, null, errorJson, attempt, now);
    }

    @Override
    public void cancelled(Lease lease, @Nullable String resultJson, String errorJson, long now) {
        end(lease, ExecutionStatus.CANCELLED, resultJson, errorJson, null, now);
    }

    /**
     * Ends the execution under its lease, with the attempt that ended it if any, and makes its parent due if it
     * waits. A completion keeps the error as it was, a failure the result, as the JDBC store's updates do.
     */
    private void end(Lease lease, ExecutionStatus status, @Nullable String result, @Nullable String error,
            @Nullable AttemptRow attempt, long now) {
        write(true, (tx) -> {
            Execution ended = endLease(tx, lease, (row) -> new ExecutionRow(row.taskId(), row.workload(),
                    row.version(), row.function(), row.arguments(), status,
                    (status == ExecutionStatus.FAILED) ? row.result() : result,
                    (status == ExecutionStatus.COMPLETED) ? row.error() : error, row.attempt(), row.retriesUsed(),
                    null, row.createdAt(), now, row.parentTaskId()));
            if (attempt != null) {
                insertAttempt(tx, attempt);
            }
            String parentId = ended.row().parentTaskId();
            Execution parent = (parentId != null) ? execution(parentId) : null;
            if (parent != null && parent.status() == ExecutionStatus.WAITING) {
                putExecution(tx, parent, parent.with(withNextRunAt(parent.row(), now)));
            }
            return null;
        });
    }

    @Override
    public boolean resume(String taskId, long now) {
        return write(true, (tx) -> {
            Execution execution = execution(taskId);
            if (execution == null || execution.status() != ExecutionStatus.FAILED) {
                return false;
            }
            ExecutionRow row = execution.row();
            putExecution(tx, execution, new Execution(new ExecutionRow(row.taskId(), row.workload(), row.version(),
                    row.function(), row.arguments(), ExecutionStatus.PENDING, row.result(), null, row.attempt() + 1, 0,
                    now, row.createdAt(), now, row.parentTaskId()), null, null, null));
            // the last step, when a failed command, runs its attempts again; a failed command before it stays
            List<StepRow> recorded = stepsOf(taskId);
            if (!recorded.isEmpty()) {
                StepRow last = recorded.get(recorded.size() - 1);
                if (StepRow.FAILED.equals(last.status()) && StepRow.COMMAND.equals(last.kind())) {
                    tx.remove(this.steps, stepKey(taskId, last.position()));
                }
            }
            return true;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // counts, retention, runtimes

    @Override
    public Map<String, Long> counts(String workload, String version, long now) {
        return scan(() -> {
            Map<String, Long> counts = new LinkedHashMap<>();
            for (ExecutionStatus status : ExecutionStatus.values()) {
                byte[] count = this.counted.get(countKey(workload, version, status));
                counts.put(status.name(), (count != null) ? Rows.number(count) : 0L);
            }
            long ready = 0;
            for (int kind = 0; kind < KINDS; kind++) {
                ready += dueOf(workload, version, kind, (kind == 2) ? now - 1 : now, Integer.MAX_VALUE, Set.of()).size();
            }
            counts.put("READY", ready);
            return counts;
        });
    }

    /**
     * Deletes ended executions (their steps, attempts, events and tags with them) that ended before
     * {@code endedBefore}, oldest end first, but not the child of an execution that has not ended (it may still read
     * the child's outcome). Read through the index of ended executions: what is left (such children) is read again
     * by the next round, nothing else.
     */
    @Override
    public int deleteEndedBefore(long endedBefore, int limit) {
        return write(true, (tx) -> {
            List<Execution> deleted = new ArrayList<>();
            // bounded: the children of running parents, passed by, are read again by every round
            int read = 0;
            for (java.util.Iterator<String> keys = this.ended.keyIterator(null); keys.hasNext()
                    && deleted.size() < Math.max(1, limit) && read++ < RETENTION_READ_LIMIT;) {
                String key = keys.next();
                if (Rows.longOf(key.substring(0, 16)) >= endedBefore) {
                    break;
                }
                Execution execution = execution(key.substring(16));
                if (execution == null || execution.row().createdAt() >= endedBefore) {
                    continue;
                }
                String parentId = execution.row().parentTaskId();
                Execution parent = (parentId != null) ? execution(parentId) : null;
                if (parent == null || parent.status().isTerminal()) {
                    deleted.add(execution);
                }
            }
            for (Execution execution : deleted) {
                String taskId = execution.taskId();
                for (Tag tag : tagsOf(taskId)) {
                    tx.remove(this.tagged, taggedKey(tag.key(), tag.value(), taskId));
                }
                for (MVMap<String, byte[]> map : List.of(this.tags, this.events, this.attempts, this.steps)) {
                    List<String> keys = new ArrayList<>();
                    forEach(map, Rows.part(taskId), (key, value) -> keys.add(key));
                    keys.forEach((key) -> tx.remove(map, key));
                }
                removeExecution(tx, execution);
            }
            return deleted.size();
        });
    }

    /** How many ended executions one round of retention reads at most (under the write lock). */
    private static final int RETENTION_READ_LIMIT = 10_000;

    @Override
    public void heartbeat(String instanceId, String workload, String version, long now) {
        write(false, (tx) -> {
            byte[] seen = this.runtimes.get(instanceId);
            long startedAt = (seen != null) ? Rows.runtime(seen).startedAt() : now;
            tx.put(this.runtimes, instanceId, Rows.runtime(new Rows.Runtime(workload, version, startedAt, now)));
            return null;
        });
    }

    @Override
    public void forget(String instanceId) {
        write(true, (tx) -> {
            tx.remove(this.runtimes, instanceId);
            return null;
        });
    }

    @Override
    public Set<String> versionsServed(String workload, long seenSince) {
        return read(() -> {
            Set<String> versions = new TreeSet<>();
            for (Cursor<String, byte[]> cursor = this.runtimes.cursor(null); cursor.hasNext();) {
                cursor.next();
                Rows.Runtime runtime = Rows.runtime(cursor.getValue());
                if (runtime.workload().equals(workload) && runtime.seenAt() >= seenSince) {
                    versions.add(runtime.version());
                }
            }
            return versions;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the rules shared by the writes

    /**
     * Checks that the lease is still held, and extends it, as the JDBC store's fence does on H2: a lease with at least
     * half of the asked-for extension left and {@code updated_at} within a second is left as it is; otherwise the
     * lease is extended and {@code updated_at} moved when it is a second behind.
     * @throws LeaseLostException if the lease is no longer held
     */
    private void requireLease(Tx tx, Lease lease, long now, long leaseUntil) {
        Execution execution = execution(lease.taskId());
        if (!held(execution, lease)) {
            throw new LeaseLostException(lease.taskId());
        }
        long until = (execution.leaseUntil() != null) ? execution.leaseUntil() : Long.MIN_VALUE;
        boolean fresh = leaseUntil > now && until >= now + (leaseUntil - now) / 2
                && execution.row().updatedAt() > now - UPDATED_AT_GRANULARITY_MILLIS;
        if (fresh) {
            return;
        }
        ExecutionRow row = execution.row();
        long updatedAt = (row.updatedAt() <= now - UPDATED_AT_GRANULARITY_MILLIS) ? now : row.updatedAt();
        putExecution(tx, execution, new Execution(withStatus(row, row.status(), row.nextRunAt(), updatedAt),
                execution.leaseOwner(), execution.leaseToken(), leaseUntil));
    }

    /** Whether the execution runs under {@code lease}. */
    private static boolean held(@Nullable Execution execution, Lease lease) {
        return execution != null && execution.status() == ExecutionStatus.RUNNING
                && lease.token().equals(execution.leaseToken());
    }

    /**
     * Ends the lease and sets the execution's new state, fenced by the lease's token and RUNNING.
     * @return the execution as written
     * @throws LeaseLostException if the lease is no longer held
     */
    private Execution endLease(Tx tx, Lease lease, Function<ExecutionRow, ExecutionRow> change) {
        Execution execution = execution(lease.taskId());
        if (!held(execution, lease)) {
            throw new LeaseLostException(lease.taskId());
        }
        Execution ended = new Execution(change.apply(execution.row()), null, null, null);
        putExecution(tx, execution, ended);
        return ended;
    }

    /**
     * Records the step, or completes the PENDING step of its kind and name at its position. The same step recorded
     * already is success (a retry after a lost acknowledgement); a different one is a conflict.
     */
    private void writeStep(Tx tx, StepRow step) {
        String key = stepKey(step.taskId(), step.position());
        byte[] stored = this.steps.get(key);
        if (stored == null) {
            tx.put(this.steps, key, Rows.step(step));
            return;
        }
        StepRow existing = Rows.step(stored);
        if (StepRow.PENDING.equals(existing.status()) && existing.kind().equals(step.kind())
                && existing.name().equals(step.name())) {
            tx.put(this.steps, key, Rows.step(new StepRow(existing.taskId(), existing.position(), existing.kind(),
                    existing.name(), existing.arguments(), step.status(), step.result(), step.error(),
                    existing.idempotencyKey(), existing.functionAttempt(), existing.startedAt(), step.completedAt(),
                    existing.childTaskId())));
            return;
        }
        StoreConflicts.refuseUnlike(existing, step);
    }

    /**
     * The attempt of a step's write, if any: recorded, or, when the step implies it (see
     * {@link JdbcExecutionStore#impliedByStep}), only checked against the attempts recorded with its number or later.
     */
    private void writeAttempt(Tx tx, StepRow step, @Nullable AttemptRow given) {
        if (given == null) {
            return;
        }
        if (!JdbcExecutionStore.impliedByStep(step, given)) {
            insertAttempt(tx, given);
            return;
        }
        String prefix = Rows.part(given.taskId()) + Rows.sortable(given.position())
                + Rows.sortable(given.functionAttempt());
        String from = prefix + Rows.sortable(given.number());
        java.util.Iterator<String> keys = this.attempts.keyIterator(from);
        if (keys.hasNext()) {
            String key = keys.next();
            if (key.startsWith(prefix)) {
                StoreConflicts.refuseUnlike(Rows.attempt(this.attempts.get(key)), given);
            }
        }
    }

    /** Records the attempt; the same attempt recorded already is success, a different one with its number a conflict. */
    private void insertAttempt(Tx tx, AttemptRow attempt) {
        String key = attemptKey(attempt);
        byte[] stored = this.attempts.get(key);
        if (stored == null) {
            tx.put(this.attempts, key, Rows.attempt(attempt));
            return;
        }
        StoreConflicts.refuseUnlike(Rows.attempt(stored), attempt);
    }

    private void insertTags(Tx tx, String taskId, List<Tag> added) {
        for (Tag tag : added) {
            String key = tagKey(taskId, tag.key(), tag.value());
            if (!this.tags.containsKey(key)) {
                tx.put(this.tags, key, EMPTY);
                tx.put(this.tagged, taggedKey(tag.key(), tag.value(), taskId), EMPTY);
            }
        }
    }

    /**
     * Writes the execution ({@code before} as it was, {@code null} for a new one) and keeps the indexes of it: what is
     * due, the creation order, the counts per status.
     */
    private void putExecution(Tx tx, @Nullable Execution before, Execution after) {
        tx.put(this.executions, after.taskId(), Rows.execution(after));
        String dueBefore = (before != null) ? dueKey(before) : null;
        String dueAfter = dueKey(after);
        if (!Objects.equals(dueBefore, dueAfter)) {
            if (dueBefore != null) {
                tx.remove(this.due, dueBefore);
            }
            if (dueAfter != null) {
                tx.put(this.due, dueAfter, EMPTY);
            }
        }
        if (before == null) {
            tx.put(this.created, Rows.sortable(after.row().createdAt()) + after.taskId(), EMPTY);
        }
        String endedBefore = (before != null) ? endedKey(before) : null;
        String endedAfter = endedKey(after);
        if (!Objects.equals(endedBefore, endedAfter)) {
            if (endedBefore != null) {
                tx.remove(this.ended, endedBefore);
            }
            if (endedAfter != null) {
                tx.put(this.ended, endedAfter, EMPTY);
            }
        }
        if (before == null || before.status() != after.status()) {
            if (before != null) {
                count(tx, before.row(), -1);
            }
            count(tx, after.row(), 1);
        }
    }

    private void removeExecution(Tx tx, Execution execution) {
        tx.remove(this.executions, execution.taskId());
        String dueKey = dueKey(execution);
        if (dueKey != null) {
            tx.remove(this.due, dueKey);
        }
        tx.remove(this.created, Rows.sortable(execution.row().createdAt()) + execution.taskId());
        String endedKey = endedKey(execution);
        if (endedKey != null) {
            tx.remove(this.ended, endedKey);
        }
        count(tx, execution.row(), -1);
    }

    private void count(Tx tx, ExecutionRow row, int delta) {
        String key = countKey(row.workload(), row.version(), row.status());
        byte[] count = this.counted.get(key);
        long now = ((count != null) ? Rows.number(count) : 0) + delta;
        if (now == 0) {
            tx.remove(this.counted, key);
        }
        else {
            tx.put(this.counted, key, Rows.number(now));
        }
    }

    /** Where the execution is in the index of due work, or {@code null} when it is not due at any time. */
    private static @Nullable String dueKey(Execution execution) {
        ExecutionRow row = execution.row();
        return switch (row.status()) {
            case PENDING -> (row.nextRunAt() != null) ? duePrefix(row.workload(), row.version(), 0)
                    + Rows.sortable(row.nextRunAt()) + row.taskId() : null;
            case WAITING -> (row.nextRunAt() != null) ? duePrefix(row.workload(), row.version(), 1)
                    + Rows.sortable(row.nextRunAt()) + row.taskId() : null;
            case RUNNING -> (execution.leaseUntil() != null) ? duePrefix(row.workload(), row.version(), 2)
                    + Rows.sortable(execution.leaseUntil()) + row.taskId() : null;
            default -> null;
        };
    }

    /**
     * The task id of a key of the index of due work that holds a running execution's lease (not yet taken back: its
     * lease is not 0), or {@code null} for any other key.
     */
    private static @Nullable String leasedTaskId(String dueKey) {
        int at = 0;
        for (int part = 0; part < 2; part++) {
            int colon = dueKey.indexOf(':', at);
            at = colon + 1 + Integer.parseInt(dueKey, at, colon, 10);
        }
        if (dueKey.charAt(at) != '2') {
            return null;
        }
        String leaseUntil = dueKey.substring(at + 1, at + 17);
        return (Rows.longOf(leaseUntil) != 0) ? dueKey.substring(at + 17) : null;
    }

    /** Where the execution is in the index of ended executions, or {@code null} when it has not ended. */
    private static @Nullable String endedKey(Execution execution) {
        return execution.status().isTerminal() ? Rows.sortable(execution.row().updatedAt()) + execution.taskId() : null;
    }

    private static String duePrefix(String workload, String version, int kind) {
        return Rows.part(workload) + Rows.part(version) + kind;
    }

    private static String countKey(String workload, String version, ExecutionStatus status) {
        return Rows.part(workload) + Rows.part(version) + status.name();
    }

    private static String stepKey(String taskId, int position) {
        return Rows.part(taskId) + Rows.sortable(position);
    }

    private static String attemptKey(AttemptRow attempt) {
        return Rows.part(attempt.taskId()) + Rows.sortable(attempt.position()) + Rows.sortable(attempt.functionAttempt())
                + Rows.sortable(attempt.number());
    }

    private static String eventKey(String taskId, long id) {
        return Rows.part(taskId) + Rows.sortable(id);
    }

    private static String tagKey(String taskId, String key, String value) {
        return Rows.part(taskId) + Rows.part(key) + value;
    }

    private static String taggedKey(String key, String value, String taskId) {
        return Rows.part(key) + Rows.part(value) + taskId;
    }

    private @Nullable Execution execution(String taskId) {
        byte[] row = this.executions.get(taskId);
        return (row != null) ? Rows.execution(row) : null;
    }

    private List<StepRow> stepsOf(String taskId) {
        List<StepRow> rows = new ArrayList<>();
        forEach(this.steps, Rows.part(taskId), (key, value) -> rows.add(Rows.step(value)));
        return rows;
    }

    private List<Event> eventsOf(String taskId) {
        List<Event> rows = new ArrayList<>();
        forEach(this.events, Rows.part(taskId), (key, value) -> rows.add(Rows.event(value)));
        return rows;
    }

    /** The execution's tags, by key then value. */
    private List<Tag> tagsOf(String taskId) {
        String prefix = Rows.part(taskId);
        List<Tag> found = new ArrayList<>();
        forEach(this.tags, prefix, (key, value) -> {
            String rest = key.substring(prefix.length());
            int colon = rest.indexOf(':');
            int length = Integer.parseInt(rest.substring(0, colon));
            found.add(new Tag(rest.substring(colon + 1, colon + 1 + length), rest.substring(colon + 1 + length)));
        });
        found.sort(Comparator.comparing(Tag::key).thenComparing(Tag::value));
        return found;
    }

    /** Each entry of {@code map} whose key starts with {@code prefix}, in key order. */
    private static void forEach(MVMap<String, byte[]> map, String prefix,
            java.util.function.BiConsumer<String, byte[]> action) {
        for (Cursor<String, byte[]> cursor = map.cursor(prefix); cursor.hasNext();) {
            String key = cursor.next();
            if (!key.startsWith(prefix)) {
                return;
            }
            action.accept(key, cursor.getValue());
        }
    }

    private static ExecutionRow withStatus(ExecutionRow row, ExecutionStatus status) {
        return withStatus(row, status, row.nextRunAt(), row.updatedAt());
    }

    private static ExecutionRow withStatus(ExecutionRow row, ExecutionStatus status, @Nullable Long nextRunAt,
            long updatedAt) {
        return new ExecutionRow(row.taskId(), row.workload(), row.version(), row.function(), row.arguments(), status,
                row.result(), row.error(), row.attempt(), row.retriesUsed(), nextRunAt, row.createdAt(), updatedAt,
                row.parentTaskId());
    }

    private static ExecutionRow withNextRunAt(ExecutionRow row, long nextRunAt) {
        return withStatus(row, row.status(), nextRunAt, row.updatedAt());
    }

    // ---------------------------------------------------------------------------------------------------------------
    // rows brought from the H2 file of the earlier embedded store (H2FileMigration), as they are

    void importExecutions(List<Execution> rows) {
        write(false, (tx) -> {
            for (Execution row : rows) {
                if (execution(row.taskId()) == null) {
                    putExecution(tx, null, row);
                }
            }
            return null;
        });
    }

    void importSteps(List<StepRow> rows) {
        write(false, (tx) -> {
            rows.forEach((row) -> tx.put(this.steps, stepKey(row.taskId(), row.position()), Rows.step(row)));
            return null;
        });
    }

    void importAttempts(List<AttemptRow> rows) {
        write(false, (tx) -> {
            rows.forEach((row) -> tx.put(this.attempts, attemptKey(row), Rows.attempt(row)));
            return null;
        });
    }

    /** The events with their ids; the next event's id follows the highest. */
    void importEvents(List<Event> rows) {
        write(false, (tx) -> {
            byte[] next = this.meta.get("event-id");
            long following = (next != null) ? Rows.number(next) : 1;
            for (Event row : rows) {
                tx.put(this.events, eventKey(row.row().taskId(), row.row().id()), Rows.event(row));
                following = Math.max(following, row.row().id() + 1);
            }
            tx.put(this.meta, "event-id", Rows.number(following));
            return null;
        });
    }

    /** Tags, each with the id of its execution. */
    void importTags(List<Map.Entry<String, Tag>> rows) {
        write(false, (tx) -> {
            rows.forEach((row) -> insertTags(tx, row.getKey(), List.of(row.getValue())));
            return null;
        });
    }

    void importSchedules(List<ScheduleRow> rows) {
        write(false, (tx) -> {
            rows.forEach((row) -> tx.put(this.schedules, Rows.part(row.workload()) + row.name(), Rows.schedule(row)));
            return null;
        });
    }

    /**
     * What disagrees between the executions and their indexes (due work, creation order, counts per status, tags),
     * each as a sentence; empty when they agree. For tests after a crash: it reads everything.
     */
    List<String> inconsistencies() {
        return read(() -> {
            List<String> problems = new ArrayList<>();
            Set<String> dueKeys = new java.util.HashSet<>();
            Set<String> endedKeys = new java.util.HashSet<>();
            Set<String> createdKeys = new java.util.HashSet<>();
            Map<String, Long> counts = new java.util.HashMap<>();
            for (Cursor<String, byte[]> cursor = this.executions.cursor(null); cursor.hasNext();) {
                String taskId = cursor.next();
                Execution execution = Rows.execution(cursor.getValue());
                if (!taskId.equals(execution.taskId())) {
                    problems.add("execution under " + taskId + " names " + execution.taskId());
                }
                String dueKey = dueKey(execution);
                if (dueKey != null) {
                    dueKeys.add(dueKey);
                }
                createdKeys.add(Rows.sortable(execution.row().createdAt()) + taskId);
                String endedKey = endedKey(execution);
                if (endedKey != null) {
                    endedKeys.add(endedKey);
                }
                counts.merge(countKey(execution.row().workload(), execution.row().version(), execution.status()), 1L,
                        Long::sum);
            }
            Set<String> indexedDue = new java.util.HashSet<>(this.due.keySet());
            if (!indexedDue.equals(dueKeys)) {
                problems.add("due work indexed " + indexedDue.size() + ", due " + dueKeys.size());
            }
            if (!new java.util.HashSet<>(this.ended.keySet()).equals(endedKeys)) {
                problems.add("ended indexed " + this.ended.size() + ", ended " + endedKeys.size());
            }
            if (!new java.util.HashSet<>(this.created.keySet()).equals(createdKeys)) {
                problems.add("creation order indexes " + this.created.size() + ", executions " + createdKeys.size());
            }
            Map<String, Long> stored = new java.util.HashMap<>();
            this.counted.forEach((key, value) -> stored.put(key, Rows.number(value)));
            if (!stored.equals(counts)) {
                problems.add("counts " + stored + ", executions " + counts);
            }
            if (this.tags.size() != this.tagged.size()) {
                problems.add("tags " + this.tags.size() + ", tagged " + this.tagged.size());
            }
            // every page of every map read: one a crash left unreadable fails here
            for (MVMap<String, byte[]> map : this.logged) {
                long entries = 0;
                for (Cursor<String, byte[]> cursor = map.cursor(null); cursor.hasNext(); cursor.next()) {
                    entries++;
                }
                if (entries != map.sizeAsLong()) {
                    problems.add(map.getName() + " holds " + entries + " entries, counts " + map.sizeAsLong());
                }
            }
            return problems;
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // reads, writes, durability

    /**
     * Runs a read under the read lock: it sees whole writes only. Without the calling thread's interrupt (kept for
     * after), as every access to the maps: H2 would close its file for every thread on an interrupt during a read.
     */
    private <T> T read(Supplier<T> work) {
        boolean interrupted = Thread.interrupted();
        this.lock.readLock().lock();
        try {
            ensureOpen();
            return work.get();
        }
        catch (org.h2.mvstore.MVStoreException ex) {
            throw unavailable(ex);
        }
        finally {
            this.lock.readLock().unlock();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs a read of many executions (a search, a count) without the lock, so that writes go on meanwhile: each map
     * is read as it is, and a write being made may be seen in part (an execution found in one index and not yet, or
     * no longer, in another is passed by).
     */
    private <T> T scan(Supplier<T> work) {
        boolean interrupted = Thread.interrupted();
        MVStore.TxCounter reading = null;
        try {
            ensureOpen();
            // the versions it reads are kept (their chunks not written over) until it ends
            reading = this.store.registerVersionUsage();
            return work.get();
        }
        catch (org.h2.mvstore.MVStoreException ex) {
            throw unavailable(ex);
        }
        finally {
            if (reading != null) {
                this.store.deregisterVersionUsage(reading);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Runs one operation under the write lock, undone entirely if it throws.
     * @param durably whether to return only once what it wrote (and what it read, written by others) is on disk
     */
    private <T> T write(boolean durably, Function<Tx, T> work) {
        boolean interrupted = Thread.interrupted();
        try {
            return write(durably, work, this.log);
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private <T> T write(boolean durably, Function<Tx, T> work, @Nullable RedoLog redo) {
        T result;
        long position;
        this.lock.writeLock().lock();
        try {
            ensureOpen();
            Tx tx = new Tx();
            try {
                result = work.apply(tx);
                if (redo != null && tx.changed()) {
                    redo.append(tx.record());
                }
            }
            catch (RuntimeException | Error ex) {
                tx.undo();
                if (ex instanceof org.h2.mvstore.MVStoreException || ex instanceof java.io.UncheckedIOException) {
                    throw unavailable((RuntimeException) ex);
                }
                throw ex;
            }
            // a write that changed nothing may still have read what others wrote: it waits for that
            position = (redo != null) ? redo.end() : -1;
        }
        finally {
            this.lock.writeLock().unlock();
        }
        if (durably && redo != null) {
            try {
                redo.awaitDurable(position);
            }
            catch (java.io.UncheckedIOException ex) {
                throw unavailable(ex);
            }
            this.durableWrites.incrementAndGet();
        }
        return result;
    }

    private StoreUnavailableException unavailable(RuntimeException ex) {
        if (dev.skail.platform.jdbc.StoreRetry.isDiskFull(ex)) {
            String reason = "the store's disk is full (" + ex.getMessage() + ")";
            this.diskFull = reason;
            return new StoreUnavailableException("skail store could not write: " + reason, ex);
        }
        return new StoreUnavailableException("skail store: " + ex.getMessage(), ex);
    }

    /** One operation's changes: the record of them for the log, and what to undo when it fails. */
    private final class Tx {

        private final List<Object[]> undo = new ArrayList<>();

        private final Rows.Writer record = new Rows.Writer(256);

        /** Whether the changes are logged (a store in a file). */
        private final boolean logging = LocalStore.this.log != null;

        void put(MVMap<String, byte[]> map, String key, byte[] value) {
            this.undo.add(new Object[] { map, key, map.put(key, value) });
            if (this.logging) {
                this.record.number(LocalStore.this.ids.get(map)).string(key).bytes(value);
            }
        }

        void remove(MVMap<String, byte[]> map, String key) {
            byte[] old = map.remove(key);
            if (old != null) {
                this.undo.add(new Object[] { map, key, old });
                if (this.logging) {
                    this.record.number(LocalStore.this.ids.get(map)).string(key).bytes(null);
                }
            }
        }

        boolean changed() {
            return !this.undo.isEmpty();
        }

        byte[] record() {
            return this.record.bytes();
        }

        @SuppressWarnings("unchecked")
        void undo() {
            for (int i = this.undo.size() - 1; i >= 0; i--) {
                Object[] change = this.undo.get(i);
                MVMap<String, byte[]> map = (MVMap<String, byte[]>) change[0];
                if (change[2] == null) {
                    map.remove(change[1]);
                }
                else {
                    map.put((String) change[1], (byte[]) change[2]);
                }
            }
        }
    }

    /**
     * The schedules: a tick is started by a compare-and-set of the schedule's next tick and the creation of its
     * execution, in one write (as {@code JdbcScheduleStore}'s transaction).
     */
    private final class Schedules implements ScheduleStore {

        @Override
        public ScheduleRow register(ScheduleRow declared, long now) {
            return write(true, (tx) -> {
                String key = Rows.part(declared.workload()) + declared.name();
                byte[] stored = LocalStore.this.schedules.get(key);
                ScheduleRow row;
                if (stored == null) {
                    row = new ScheduleRow(declared.workload(), declared.name(), declared.function(),
                            declared.version(), declared.cron(), declared.zone(), declared.missed(),
                            declared.nextTick(), null, null, now);
                }
                else {
                    ScheduleRow was = Rows.schedule(stored);
                    boolean same = was.sameTicks(declared);
                    row = new ScheduleRow(was.workload(), was.name(), declared.function(), declared.version(),
                            declared.cron(), declared.zone(), declared.missed(),
                            same ? was.nextTick() : declared.nextTick(), was.lastTick(), was.lastTaskId(), now);
                }
                tx.put(LocalStore.this.schedules, key, Rows.schedule(row));
                return row;
            });
        }

        @Override
        public List<ScheduleRow> schedules(String workload) {
            return read(() -> {
                List<ScheduleRow> rows = new ArrayList<>();
                forEach(LocalStore.this.schedules, Rows.part(workload), (key, value) -> rows.add(Rows.schedule(value)));
                return rows;
            });
        }

        @Override
        public boolean fire(ScheduleRow schedule, long tick, @Nullable Long following, ExecutionRow execution,
                long now) {
            Long expected = schedule.nextTick();
            if (expected == null) {
                return false;
            }
            return write(true, (tx) -> {
                String key = Rows.part(schedule.workload()) + schedule.name();
                byte[] stored = LocalStore.this.schedules.get(key);
                ScheduleRow was = (stored != null) ? Rows.schedule(stored) : null;
                if (was == null || !expected.equals(was.nextTick()) || !was.sameTicks(schedule)) {
                    return false;
                }
                tx.put(LocalStore.this.schedules, key, Rows.schedule(new ScheduleRow(was.workload(), was.name(),
                        was.function(), was.version(), was.cron(), was.zone(), was.missed(), following, tick,
                        execution.taskId(), now)));
                // an execution with the tick's id may exist already (triggered by hand with that id): it is the tick's
                if (execution(execution.taskId()) == null) {
                    putExecution(tx, null, new Execution(execution, null, null, null));
                }
                return true;
            });
        }
    }
}
