package dev.skail.platform.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import javax.sql.DataSource;

import dev.skail.ExecutionStatus;
import dev.skail.SkailAttempt;
import dev.skail.SkailQuery;
import dev.skail.platform.AttemptRow;
import dev.skail.platform.EventRow;
import dev.skail.platform.ExecutionRow;
import dev.skail.platform.ExecutionStore;
import dev.skail.platform.Lease;
import dev.skail.platform.LeaseLostException;
import dev.skail.platform.StepRow;
import dev.skail.platform.StoreConflicts;
import dev.skail.platform.StoreUnavailableException;
import dev.skail.platform.StoredHistory;
import dev.skail.platform.Suspend;
import dev.skail.platform.Tag;
import dev.skail.platform.TaggedExecution;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The embedded platform's store on JDBC: H2 by default, PostgreSQL for several instances. It uses its own
 * {@link DataSource}, never the application's. Transport failures are retried by {@link StoreRetry}.
 */
public class JdbcExecutionStore implements ExecutionStore, AutoCloseable {

    private static final Log logger = LogFactory.getLog(JdbcExecutionStore.class);

    static final String EXECUTION_COLUMNS = "task_id, workload, version, function_name, arguments, status, "
            + "result, error, attempt, retries_used, next_run_at, created_at, updated_at, parent_task_id";

    /** How many columns {@link #EXECUTION_COLUMNS} names. */
    static final int EXECUTION_COLUMN_COUNT = EXECUTION_COLUMNS.split(", ").length;

    static final String STEP_COLUMNS = "task_id, position, kind, name, arguments, status, result, error, "
            + "idempotency_key, function_attempt, started_at, completed_at, child_task_id";

    private static final String ATTEMPT_COLUMNS = "task_id, position, name, function_attempt, number, started_at, "
            + "ended_at, outcome, error, decision, backoff_ms";

    /** The kinds of step recorded PENDING while the function waits, and completed when the wait ends. */
    private static final Set<String> WAITED_KINDS = Set.of(StepRow.DELAY, StepRow.EVENT, StepRow.CHILD);

    // ORDER BY names the whole index prefix, constant as it is, so that H2 reads the index in order and stops early
    private static final String DUE_PENDING = "SELECT task_id FROM skail_execution WHERE workload = ? AND version = ? "
            + "AND status = 'PENDING' AND next_run_at <= ? ORDER BY workload, version, status, next_run_at";

    private static final String DUE_WAITING = "SELECT task_id FROM skail_execution WHERE workload = ? AND version = ? "
            + "AND status = 'WAITING' AND next_run_at <= ? ORDER BY workload, version, status, next_run_at";

    private static final String EXPIRED_RUNNING = "SELECT task_id FROM skail_execution WHERE workload = ? "
            + "AND version = ? AND status = 'RUNNING' AND lease_until < ? ORDER BY lease_until";

    // no status filter: the parent's row is locked in any case, so a parent being delivered either sees the child
    // ended when it suspends, or is WAITING by the time this runs
    private static final String WAKE_PARENT = "UPDATE skail_execution SET next_run_at = CASE WHEN status = 'WAITING' "
            + "THEN ? ELSE next_run_at END WHERE task_id = (SELECT parent_task_id FROM skail_execution WHERE task_id = ?)";

    private final DataSource dataSource;

    private final SqlDialect dialect;

    private final StoreRetry retry;

    private final @Nullable AutoCloseable owned;

    private final @Nullable String schema;

    private final boolean initializeSchema;

    /** Why the store cannot be used yet (its schema is not created: the database was unreachable), or null. */
    private volatile @Nullable String notReady;

    private volatile boolean closed;

    private final JdbcCustomization customization;

    /** Which kind of due work a claim takes first, in turns. */
    private final AtomicInteger turns = new AtomicInteger();

    private final AtomicBoolean started = new AtomicBoolean();

    private final List<AutoCloseable> listeners = new CopyOnWriteArrayList<>();

    /**
     * The writes of concurrent executions share one transaction and one sync (H2, whose commit writes pages and forces
     * the file: its cost is paid once for many); {@code null} where each write is a transaction of its own
     * (PostgreSQL, which shares its log's flushes among concurrent commits itself: grouping its writes was measured,
     * 0.43 instead of 1.27 write transactions per step in benchmark B, and brought no more executions per second).
     */
    private final @Nullable GroupCommit groupCommit;

    /** PostgreSQL: the usual steps of concurrent executions, written by one statement. */
    private final @Nullable PostgreSqlStepBatches stepBatches;

    /** On PostgreSQL, what tells the other instances of each end, once committed (see {@link #onEnded}). */
    private final @Nullable PostgreSqlEndAnnouncements ends;

    /**
     * @param dataSource the store's own data source
     * @param dialect its database's dialect
     * @param retry the retry of transport failures
     * @param owned what {@link #close()} closes (the pool this store created), or {@code null}
     */
    public JdbcExecutionStore(DataSource dataSource, SqlDialect dialect, StoreRetry retry,
            @Nullable AutoCloseable owned) {
        this(dataSource, dialect, retry, owned, null, true);
    }

    /**
     * @param dataSource the store's own data source, its connections already in {@code schema} when one is named
     * @param dialect its database's dialect
     * @param retry the retry of transport failures
     * @param owned what {@link #close()} closes (the pool this store created), or {@code null}
     * @param schema the schema the tables live in, created by {@link #initialize()} when missing, or {@code null}
     * for the connections' default schema
     * @param initializeSchema whether {@link #initialize()} creates what is missing; when {@code false} it creates
     * nothing and fails unless the tables are there at the version this runtime needs
     */
    public JdbcExecutionStore(DataSource dataSource, SqlDialect dialect, StoreRetry retry,
            @Nullable AutoCloseable owned, @Nullable String schema, boolean initializeSchema) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.retry = retry;
        this.owned = owned;
        this.schema = schema;
        this.initializeSchema = initializeSchema;
        this.customization = JdbcCustomization.of(dialect);
        this.groupCommit = (dialect == SqlDialect.H2) ? new GroupCommit(dataSource, this.customization, 64) : null;
        this.stepBatches = (dialect == SqlDialect.POSTGRESQL) ? new PostgreSqlStepBatches(dataSource) : null;
        this.ends = (dialect == SqlDialect.POSTGRESQL) ? new PostgreSqlEndAnnouncements(dataSource) : null;
        retry.gate(() -> this.notReady);
    }

    /** PostgreSQL's announcements of ends (tests). */
    @Nullable PostgreSqlEndAnnouncements ends() {
        return this.ends;
    }

    /** PostgreSQL's batches of steps (tests). */
    @Nullable PostgreSqlStepBatches stepBatches() {
        return this.stepBatches;
    }

    /** The store's group commit (H2), for its tests. */
    @Nullable GroupCommit groupCommit() {
        return this.groupCommit;
    }

    /** The store's data source, for its tests. */
    DataSource dataSource() {
        return this.dataSource;
    }

    /** The database this store writes to. */
    public SqlDialect dialect() {
        return this.dialect;
    }

    /** The schedules of this store, on its data source, in its tables (see {@link JdbcScheduleStore}). */
    public dev.skail.platform.ScheduleStore scheduleStore() {
        return new JdbcScheduleStore(this.dataSource, this.retry, this.customization);
    }

    /**
     * How many of this store's commits waited to be on disk before they were acknowledged, how many syncs to the
     * device that took, and how many writes (a trigger, a step, an end...) those commits carried; empty when the
     * database makes each commit durable itself (PostgreSQL) or keeps nothing beyond the process (H2 in memory).
     */
    public Optional<Syncs> syncs() {
        long[] counts = this.customization.syncs();
        if (counts == null) {
            return Optional.empty();
        }
        GroupCommit group = this.groupCommit;
        long[] grouped = (group != null) ? group.counts() : new long[] { 0, 0 };
        return Optional.of(new Syncs(counts[0], counts[1], counts[0] + grouped[0] - grouped[1], counts[2]));
    }

    /**
     * The durability work of an embedded store.
     * @param commits the commits that waited to be on disk before anyone was told they are recorded
     * @param syncs the syncs to the device that made them so (fewer than the commits when many write at once)
     * @param writes the writes those commits carried (more than the commits when the writes of several executions
     * shared one: group commit), the claims that rode them included (a claim made alone is not counted: it waits for
     * no sync)
     * @param barrierForces the forces to the device made, besides the syncs, before H2 wrote over space of its file
     * that it had written before (H2 reuses the space of chunks it no longer needs; what made that space free must be
     * on the device before it is written over, see {@code docs/performance.md}); each forces earlier what the next
     * sync would have forced
     */
    public record Syncs(long commits, long syncs, long writes, long barrierForces) {
    }

    /** How many writes wait for the group commit in progress to end (none where writes are not grouped). */
    int writesQueued() {
        GroupCommit group = this.groupCommit;
        return (group != null) ? group.queued() : 0;
    }

    /** The database's own behaviour, for the store's tests. */
    JdbcCustomization customization() {
        return this.customization;
    }

    @Override
    public void close() throws Exception {
        this.closed = true;
        if (this.ends != null) {
            // before the pool: the ends announced already are sent on it
            this.ends.close();
        }
        try {
            for (AutoCloseable listener : this.listeners) {
                listener.close();
            }
        }
        finally {
            this.customization.close();
            if (this.owned != null) {
                this.owned.close();
            }
        }
    }

    /**
     * Creates or migrates the schema now when the database answers; when it cannot be reached, the application
     * starts anyway and a background thread migrates as soon as it can (with backoff), every operation failing
     * with {@link StoreUnavailableException} until then.
     */
    @Override
    public void initialize() {
        try {
            this.retry.once("initialize the schema", this::migrateAndStart);
        }
        catch (StoreUnavailableException ex) {
            this.notReady = "its schema is not created yet: " + ex.getMessage();
            logger.warn("skail store cannot be reached (" + ex.getMessage() + "); starting without it, its schema is "
                    + "created as soon as it answers");
            Thread initializer = new Thread(this::initializeWhenReachable, "skail-store-init");
            initializer.setDaemon(true);
            initializer.start();
        }
    }

    private void initializeWhenReachable() {
        long wait = 200;
        while (!this.closed) {
            try {
                Thread.sleep(wait);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
            try {
                this.retry.once("initialize the schema", this::migrateAndStart);
                this.notReady = null;
                logger.info("skail store reached: schema ready");
                return;
            }
            catch (RuntimeException ex) {
                this.notReady = "its schema is not created yet: " + ex.getMessage();
                wait = Math.min(wait * 2, 5_000);
            }
        }
    }

    /**
     * A connection and a {@code SELECT 1}, once; on an H2 store whose disk was full, a small write, to learn whether
     * it has room again.
     */
    @Override
    public void check() {
        String notReady = this.notReady;
        if (notReady != null) {
            throw new StoreUnavailableException("skail store is not ready: " + notReady, null);
        }
        String diskFull = this.retry.diskFull();
        boolean diskWasFull = diskFull != null;
        if (diskWasFull && !this.customization.hasRoom()) {
            // a small write may still fit in space the embedded file has free inside it; the disk has not got room
            // back until its file system has
            throw new StoreUnavailableException("skail store could not answer a probe: " + diskFull, null);
        }
        this.retry.once("answer a probe", () -> {
            if (diskWasFull) {
                return inTransaction((connection) -> update(connection, "UPDATE skail_schema SET version = version"));
            }
            try (Connection connection = this.dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
                return null;
            }
        });
        if (diskWasFull) {
            this.retry.diskFreed();
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * On PostgreSQL, a connection of the pool listens for the notifications the store's writes send when they make
     * work due at once; on H2 (one process, whose runtime wakes its own worker) there is nothing to listen to.
     */
    @Override
    public AutoCloseable onDue(String workload, String version, Runnable wakeUp) {
        AutoCloseable listener = this.customization.listen(this.dataSource, workload, version, wakeUp);
        this.listeners.add(listener);
        return () -> {
            this.listeners.remove(listener);
            listener.close();
        };
    }

    /**
     * {@inheritDoc}
     * <p>
     * On PostgreSQL, a connection of the pool listens on the channel of ended executions, which the ends of
     * {@link #complete}, {@link #fail} and {@link #cancelled} are announced on once committed (together when they come
     * together, see {@link PostgreSqlEndAnnouncements}); on H2 there is nothing to listen to.
     */
    @Override
    public ExecutionStore.Listening onEnded(java.util.function.Consumer<@Nullable String> ended) {
        AutoCloseable listener = this.customization.listenEnded(this.dataSource, ended);
        this.listeners.add(listener);
        return new ExecutionStore.Listening() {

            @Override
            public boolean listening() {
                return (listener instanceof ExecutionStore.Listening listens) && listens.listening();
            }

            @Override
            public void close() throws Exception {
                JdbcExecutionStore.this.listeners.remove(listener);
                listener.close();
            }
        };
    }

    /** On PostgreSQL: every end is announced once committed ({@link #onEnded}). */
    @Override
    public boolean announcesEnds() {
        return this.dialect == SqlDialect.POSTGRESQL;
    }

    /** Migrates under the database's lock for it, then, once, what the store does when it starts. */
    private Void migrateAndStart() throws SQLException {
        this.customization.migrating(this.dataSource, this::migrate);
        if (!this.closed && this.started.compareAndSet(false, true)) {
            this.customization.started(this.dataSource);
        }
        return null;
    }

    private Void migrate() throws SQLException {
        try (Connection connection = this.dataSource.getConnection()) {
            if (!this.initializeSchema) {
                return checkSchema(connection);
            }
            createSchema(connection);
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS skail_schema (version INT NOT NULL)");
            }
            connection.commit();
            int current = 0;
            try (Statement statement = connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT MAX(version) FROM skail_schema")) {
                if (rs.next()) {
                    current = rs.getInt(1);
                }
            }
            List<List<String>> migrations = SchemaMigrations.all(this.dialect);
            if (current > migrations.size()) {
                throw new IllegalStateException("The skail store has schema version " + current
                        + ", newer than this runtime knows (" + migrations.size() + "); upgrade the runtime");
            }
            for (int version = current + 1; version <= migrations.size(); version++) {
                try (Statement statement = connection.createStatement()) {
                    for (String sql : migrations.get(version - 1)) {
                        statement.execute(sql);
                    }
                    statement.execute("INSERT INTO skail_schema (version) VALUES (" + version + ")");
                }
                connection.commit();
                logger.info("skail store schema migrated to version " + version);
            }
            return null;
        }
    }

    private void createSchema(Connection connection) throws SQLException {
        if (this.schema == null) {
            return;
        }
        // asked first: CREATE SCHEMA IF NOT EXISTS needs the right to create schemas even when the schema is there
        try (PreparedStatement exists = connection
            .prepareStatement("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
            exists.setString(1, this.schema);
            try (ResultSet rs = exists.executeQuery()) {
                if (rs.next()) {
                    return;
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS \"" + this.schema + "\"");
        }
        catch (SQLException ex) {
            // another instance created it in between (PostgreSQL: a duplicate key in its catalog)
            if (!this.dialect.isUniqueViolation(ex) && !"42P06".equals(ex.getSQLState())) {
                throw ex;
            }
        }
        if (!connection.getAutoCommit()) {
            connection.commit();
        }
    }

    private Void checkSchema(Connection connection) throws SQLException {
        int needed = SchemaMigrations.all(this.dialect).size();
        String where = (this.schema != null) ? "schema '" + this.schema + "'" : "the connection's default schema";
        String ddl = "Run the DDL published in docs/operations.md (section 'A store whose tables the application "
                + "may not create'), " + ((this.schema != null) ? "with search_path set to " + this.schema + ", " : "");
        int current;
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SELECT MAX(version) FROM skail_schema")) {
            current = rs.next() ? rs.getInt(1) : 0;
        }
        catch (SQLException ex) {
            if (!this.dialect.isUndefinedTable(ex)) {
                throw ex;
            }
            throw new IllegalStateException("skail.store.initialize-schema is false and the skail tables are missing "
                    + "from " + where + ": skail needs schema version " + needed + ". " + ddl
                    + "or set skail.store.initialize-schema=true to let skail create them", ex);
        }
        if (current > needed) {
            throw new IllegalStateException("The skail store has schema version " + current
                    + ", newer than this runtime knows (" + needed + "); upgrade the runtime");
        }
        if (current < needed) {
            throw new IllegalStateException("skail.store.initialize-schema is false and the skail tables in " + where
                    + " are at schema version " + current + ", this runtime needs version " + needed + ". " + ddl
                    + "from the statements under '" + SchemaMigrations.VERSION_COMMENT + (current + 1)
                    + "' on, or set skail.store.initialize-schema=true to let skail migrate them");
        }
        return null;
    }

    @Override
    public Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags) {
        return create(execution, tags, null, 0);
    }

    /**
     * {@inheritDoc}
     * <p>
     * One transaction, as {@link #create}: the row is inserted RUNNING under the new lease, so no poll of any instance
     * takes it while the lease holds; if the process dies before it runs it, the lease ends and it is taken back as
     * any execution whose runner died.
     */
    @Override
    public Created createClaimed(ExecutionRow execution, List<Tag> tags, Lease lease, long leaseUntil) {
        Optional<ExecutionRow> existing = create(execution, tags, lease, leaseUntil);
        return new Created(existing, existing.isEmpty());
    }

    /**
     * Inserts the execution with its tags in one transaction: PENDING and announced as due, or RUNNING under
     * {@code lease} (nobody else is told). When the id is taken, the execution that has it.
     */
    private Optional<ExecutionRow> create(ExecutionRow execution, List<Tag> tags, @Nullable Lease lease,
            long leaseUntil) {
        if (this.dialect == SqlDialect.POSTGRESQL && tags.isEmpty()) {
            return this.retry.run("create execution " + execution.taskId(),
                    () -> createInOneStatement(execution, lease, leaseUntil));
        }
        return this.retry.run("create execution " + execution.taskId(), () -> inGroup(connection -> {
            try {
                update(connection, INSERT_EXECUTION, executionValues(execution, lease, leaseUntil));
                insertTags(connection, execution.taskId(), tags);
                if (lease == null) {
                    this.customization.announceDue(connection, execution.workload(), execution.version(),
                            execution.taskId());
                }
                return Optional.<ExecutionRow>empty();
            }
            catch (SQLException ex) {
                if (this.dialect.isUniqueViolation(ex)) {
                    if (this.dialect == SqlDialect.POSTGRESQL) {
                        // the failed insert aborted the transaction (H2 rolls back only the statement, which keeps
                        // the other writes of a group commit; PostgreSQL's writes are not grouped)
                        connection.rollback();
                    }
                    if (lease != null && claimedUnder(connection, execution.taskId(), lease)) {
                        return Optional.<ExecutionRow>empty();
                    }
                    return Optional.of(findExecution(connection, execution.taskId())
                        .orElseThrow(() -> new IllegalStateException("execution vanished", ex)));
                }
                throw ex;
            }
        }));
    }

    /**
     * An execution without tags created on PostgreSQL in one statement and one round trip, committed on its own: the
     * insert and, for a PENDING one, the notification that it is due (sent at its commit). When the id is taken, the
     * execution that has it (read after).
     */
    private Optional<ExecutionRow> createInOneStatement(ExecutionRow execution, @Nullable Lease lease, long leaseUntil)
            throws SQLException {
        String sql = "WITH created AS (" + INSERT_EXECUTION + " ON CONFLICT (task_id) DO NOTHING "
                + "RETURNING task_id, workload, version) SELECT (SELECT COUNT(*) FROM created), "
                + ((lease == null) ? "(SELECT COUNT(pg_notify(" + PostgreSqlJdbcCustomization.channel("workload",
                        "version") + ", task_id)) FROM created)" : "0");
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            boolean created;
            try (PreparedStatement ps = connection.prepareStatement(sql)) {
                bind(ps, executionValues(execution, lease, leaseUntil));
                try (ResultSet rs = ps.executeQuery()) {
                    created = rs.next() && rs.getLong(1) == 1;
                }
            }
            if (created || (lease != null && claimedUnder(connection, execution.taskId(), lease))) {
                return Optional.empty();
            }
            return Optional.of(findExecution(connection, execution.taskId())
                .orElseThrow(() -> new IllegalStateException("execution vanished")));
        }
    }

    /** A new execution with its lease columns: PENDING and unleased, or RUNNING under a lease (a claimed create). */
    private static final String INSERT_EXECUTION = "INSERT INTO skail_execution (" + EXECUTION_COLUMNS
            + ", lease_owner, lease_token, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    /** The values of {@link #INSERT_EXECUTION}: the execution as it is, or RUNNING under {@code lease}. */
    private static @Nullable Object[] executionValues(ExecutionRow execution, @Nullable Lease lease, long leaseUntil) {
        return new @Nullable Object[] { execution.taskId(), execution.workload(), execution.version(),
                execution.function(), execution.arguments(),
                (lease == null) ? execution.status().name() : ExecutionStatus.RUNNING.name(), execution.result(),
                execution.error(), execution.attempt(), execution.retriesUsed(), execution.nextRunAt(),
                execution.createdAt(), execution.updatedAt(), execution.parentTaskId(),
                (lease != null) ? lease.owner() : null, (lease != null) ? lease.token() : null,
                (lease != null) ? leaseUntil : null };
    }

    /**
     * Whether the execution that has the id was created under {@code lease}: a retry of a claimed create whose
     * commit's acknowledgement was lost finds its own row, which is this caller's to run, not another's.
     */
    private static boolean claimedUnder(Connection connection, String taskId, Lease lease) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT lease_token FROM skail_execution "
                + "WHERE task_id = ?")) {
            ps.setString(1, taskId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && lease.token().equals(rs.getString(1));
            }
        }
    }

    /** Inserts the tags the execution does not have yet. */
    private void insertTags(Connection connection, String taskId, List<Tag> tags) throws SQLException {
        for (Tag tag : tags) {
            insertIfAbsent(connection, "INSERT INTO skail_tag (task_id, tag_key, tag_value) VALUES (?, ?, ?)",
                    "task_id, tag_key, tag_value", taskId, tag.key(), tag.value());
        }
    }

    /** Inserts the execution; also how {@link JdbcScheduleStore} creates a tick's execution, in its transaction. */
    static void insertExecution(Connection connection, ExecutionRow execution) throws SQLException {
        update(connection, "INSERT INTO skail_execution (" + EXECUTION_COLUMNS
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", execution.taskId(), execution.workload(),
                execution.version(), execution.function(), execution.arguments(), execution.status().name(),
                execution.result(), execution.error(), execution.attempt(), execution.retriesUsed(),
                execution.nextRunAt(), execution.createdAt(), execution.updatedAt(), execution.parentTaskId());
    }

    @Override
    public Optional<ExecutionRow> find(String taskId) {
        return this.retry.run("read execution " + taskId, () -> {
            try (Connection connection = this.dataSource.getConnection()) {
                return findExecution(connection, taskId);
            }
        });
    }

    @Override
    public Optional<TaggedExecution> findTagged(String taskId) {
        return this.retry.run("read execution " + taskId, () -> {
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = connection.prepareStatement(FIND_TAGGED)) {
                ps.setString(1, taskId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<TaggedExecution>empty();
                    }
                    ExecutionRow row = executionRow(rs);
                    List<Tag> tags = new ArrayList<>();
                    do {
                        String key = rs.getString(15);
                        if (key != null) {
                            tags.add(new Tag(key, rs.getString(16)));
                        }
                    }
                    while (rs.next());
                    return Optional.of(new TaggedExecution(row, tags));
                }
            }
        });
    }

    /** An execution and its tags (one row per tag, the execution's columns in each; one row without tags). */
    private static final String FIND_TAGGED = "SELECT " + executionColumns("e.")
            + ", t.tag_key, t.tag_value FROM skail_execution e LEFT JOIN skail_tag t ON t.task_id = e.task_id "
            + "WHERE e.task_id = ? ORDER BY t.tag_key, t.tag_value";

    /** {@link #EXECUTION_COLUMNS}, each named with {@code prefix} (a table's alias and a dot). */
    static String executionColumns(String prefix) {
        return Arrays.stream(EXECUTION_COLUMNS.split(", "))
            .map((column) -> prefix + column)
            .collect(java.util.stream.Collectors.joining(", "));
    }

    @Override
    public Optional<StoredHistory> history(String taskId) {
        return this.retry.run("read history " + taskId, () -> {
            try (Connection connection = this.dataSource.getConnection()) {
                if (this.dialect == SqlDialect.POSTGRESQL) {
                    return historyInOneRoundTrip(connection, taskId);
                }
                Optional<ExecutionRow> execution = findExecution(connection, taskId);
                if (execution.isEmpty()) {
                    return Optional.<StoredHistory>empty();
                }
                List<StepRow> steps = steps(connection, taskId);
                return Optional.of(new StoredHistory(execution.get(), steps,
                        withImpliedAttempts(steps, attempts(connection, taskId)), events(connection, taskId)));
            }
        });
    }

    @Override
    public List<ExecutionRow> search(SkailQuery query, long offset, int limit) {
        Sql sql = searchSql(query, offset, limit);
        return this.retry.run("search executions", () -> {
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = sql.prepare(connection)) {
                // a map: H2 2.4 may return a row twice when it reads an IN list through an index
                Map<String, ExecutionRow> rows = new LinkedHashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ExecutionRow row = executionRow(rs);
                        rows.putIfAbsent(row.taskId(), row);
                    }
                }
                return List.copyOf(rows.values());
            }
        });
    }

    @Override
    public Map<ExecutionStatus, Long> countByStatus(SkailQuery query) {
        Sql sql = countSql(query);
        return this.retry.run("count executions", () -> {
            Map<ExecutionStatus, Long> counts = new java.util.EnumMap<>(ExecutionStatus.class);
            for (ExecutionStatus status : ExecutionStatus.values()) {
                counts.put(status, 0L);
            }
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = sql.prepare(connection);
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    counts.put(ExecutionStatus.valueOf(rs.getString(1)), rs.getLong(2));
                }
            }
            return counts;
        });
    }

    /**
     * The statement that searches: the filters over the indexes of schema version 4 (see {@code docs/search.md}),
     * newest first. An equality on the function (or on one status) is named first in ORDER BY, constant as it is, so
     * that H2 too reads the index on it in order and stops at the page's end.
     */
    Sql searchSql(SkailQuery query, long offset, int limit) {
        Sql sql = new Sql(new StringBuilder("SELECT " + EXECUTION_COLUMNS + " FROM skail_execution e"), new ArrayList<>());
        where(query, true, sql);
        String leading = (query.function() != null) ? "e.function_name, "
                : (query.statuses().size() == 1) ? "e.status, " : "";
        sql.text().append(" ORDER BY ").append(leading).append("e.created_at DESC, e.task_id DESC OFFSET ")
            .append(Math.max(0, offset)).append(" ROWS FETCH FIRST ").append(Math.max(1, limit)).append(" ROWS ONLY");
        return sql;
    }

    /** The statement that counts per status, the query's statuses left aside. */
    Sql countSql(SkailQuery query) {
        Sql sql = new Sql(new StringBuilder("SELECT e.status, COUNT(*) FROM skail_execution e"), new ArrayList<>());
        where(query, false, sql);
        sql.text().append(" GROUP BY e.status");
        return sql;
    }

    private static void where(SkailQuery query, boolean statuses, Sql sql) {
        StringBuilder text = sql.text();
        List<Object> values = sql.values();
        text.append(" WHERE 1 = 1");
        if (query.function() != null) {
            text.append(" AND e.function_name = ?");
            values.add(query.function());
        }
        if (statuses && !query.statuses().isEmpty()) {
            if (query.statuses().size() == 1) {
                text.append(" AND e.status = ?");
            }
            else {
                text.append(" AND e.status IN (").append(String.join(", ",
                        java.util.Collections.nCopies(query.statuses().size(), "?"))).append(")");
            }
            query.statuses().forEach((status) -> values.add(status.name()));
        }
        range(text, values, "e.created_at", query.createdFrom(), query.createdTo());
        range(text, values, "e.updated_at", query.updatedFrom(), query.updatedTo());
        if (query.idContaining() != null) {
            text.append(" AND e.task_id LIKE ? ESCAPE '!'");
            values.add("%" + query.idContaining().replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
        }
        for (SkailQuery.Tag tag : query.tags()) {
            text.append(" AND EXISTS (SELECT 1 FROM skail_tag t WHERE t.task_id = e.task_id AND t.tag_key = ? "
                    + "AND t.tag_value = ?)");
            values.add(tag.key());
            values.add(tag.value());
        }
    }

    /** A half-open range [from, to) of a column of epoch milliseconds. */
    private static void range(StringBuilder text, List<Object> values, String column, java.time.@Nullable Instant from,
            java.time.@Nullable Instant to) {
        if (from != null) {
            text.append(" AND ").append(column).append(" >= ?");
            values.add(millisAtOrAfter(from));
        }
        if (to != null) {
            text.append(" AND ").append(column).append(" < ?");
            values.add(millisAtOrAfter(to));
        }
    }

    /**
     * The first whole millisecond at or after the instant (a time in milliseconds is at or after the instant exactly
     * when it is at or after that one), saturated at the range of {@code long}.
     */
    public static long millisAtOrAfter(java.time.Instant instant) {
        try {
            long millis = instant.toEpochMilli();
            // toEpochMilli rounds down, before as after 1970
            return (instant.getNano() % 1_000_000 != 0 && millis < Long.MAX_VALUE) ? millis + 1 : millis;
        }
        catch (ArithmeticException ex) {
            return (instant.getEpochSecond() < 0) ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    @Override
    public Map<String, List<Tag>> tags(java.util.Collection<String> taskIds) {
        if (taskIds.isEmpty()) {
            return Map.of();
        }
        List<String> ids = List.copyOf(new java.util.LinkedHashSet<>(taskIds));
        return this.retry.run("read tags", () -> {
            Map<String, List<Tag>> tags = new LinkedHashMap<>();
            try (Connection connection = this.dataSource.getConnection()) {
                for (int from = 0; from < ids.size(); from += 200) {
                    List<String> chunk = ids.subList(from, Math.min(ids.size(), from + 200));
                    try (PreparedStatement ps = connection.prepareStatement("SELECT task_id, tag_key, tag_value "
                            + "FROM skail_tag WHERE task_id IN (" + String.join(", ",
                                    java.util.Collections.nCopies(chunk.size(), "?"))
                            + ") ORDER BY task_id, tag_key, tag_value")) {
                        for (int i = 0; i < chunk.size(); i++) {
                            ps.setString(i + 1, chunk.get(i));
                        }
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                Tag tag = new Tag(rs.getString(2), rs.getString(3));
                                List<Tag> of = tags.computeIfAbsent(rs.getString(1), (id) -> new ArrayList<>());
                                if (!of.contains(tag)) {
                                    of.add(tag);
                                }
                            }
                        }
                    }
                }
            }
            return tags;
        });
    }

    @Override
    public void tag(Lease lease, Tag tag, long now, long leaseUntil) {
        this.retry.run("tag " + lease.taskId(), () -> inTransaction(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            insertTags(connection, lease.taskId(), List.of(tag));
            return null;
        }));
    }

    /**
     * A statement and the values of its parameters.
     *
     * @param text the SQL
     * @param values the values, in order
     */
    record Sql(StringBuilder text, List<Object> values) {

        PreparedStatement prepare(Connection connection) throws SQLException {
            PreparedStatement ps = connection.prepareStatement(this.text.toString());
            try {
                for (int i = 0; i < this.values.size(); i++) {
                    ps.setObject(i + 1, this.values.get(i));
                }
                return ps;
            }
            catch (SQLException | RuntimeException ex) {
                ps.close();
                throw ex;
            }
        }
    }

    @Override
    public List<Lease> claimDue(String workload, String version, String owner, int limit, long now,
            long leaseUntil, Set<String> exclude) {
        // the due rows of each kind, taken in turns, updated and read back (see the dialect's JdbcCustomization)
        JdbcCustomization.Claim claim = new JdbcCustomization.Claim(workload, version, owner, limit, now, leaseUntil,
                exclude, Math.floorMod(this.turns.getAndIncrement(), 3));
        return this.retry.run("claim due executions", () -> {
            GroupCommit group = this.groupCommit;
            if (group != null && this.customization.ownedByThisProcess()) {
                // a claim need not be durable (lost, its executions are due again; this process alone opens the
                // file): it rides the next batch when one is sure to come, and is told at its commit
                return group.runUnsynced((connection) -> this.customization.claimDue(connection, claim),
                        () -> claimAlone(claim));
            }
            return claimAlone(claim);
        });
    }

    /**
     * {@inheritDoc}
     * <p>
     * On PostgreSQL the claim also returns each execution's row, and, in the same round trip, which of them have a
     * step, an attempt or an event (read once the claim holds their rows): the history of any other is that row and
     * nothing else, and the runner does not read it again. Elsewhere as {@link #claimDue}.
     */
    @Override
    public List<Claimed> claimDueWithHistory(String workload, String version, String owner, int limit, long now,
            long leaseUntil, Set<String> exclude) {
        if (this.dialect != SqlDialect.POSTGRESQL) {
            return ExecutionStore.super.claimDueWithHistory(workload, version, owner, limit, now, leaseUntil, exclude);
        }
        JdbcCustomization.Claim claim = new JdbcCustomization.Claim(workload, version, owner, limit, now, leaseUntil,
                exclude, Math.floorMod(this.turns.getAndIncrement(), 3));
        return this.retry.run("claim due executions", () -> {
            try (Connection connection = this.dataSource.getConnection()) {
                List<Claimed> claimed = ((PostgreSqlJdbcCustomization) this.customization)
                    .claimDueWithHistory(connection, claim);
                if (!connection.getAutoCommit()) {
                    connection.commit();
                }
                return claimed;
            }
        });
    }

    /** A claim in a transaction of its own (auto-commit: each of the dialect's statements checks what is due itself). */
    private List<Lease> claimAlone(JdbcCustomization.Claim claim) throws SQLException {
        try (Connection connection = this.dataSource.getConnection()) {
            List<Lease> leases = this.customization.claimDue(connection, claim);
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
            return leases;
        }
    }

    /**
     * {@inheritDoc}
     * <p>
     * Each lease is renewed in its own short transaction, holding one execution's row lock at a time: a transaction
     * that locks several rows (a child's end locks the child, then its parent) can never wait for a renewal that
     * waits for it in turn.
     */
    @Override
    public List<Lease> renew(List<Lease> leases, long now, long leaseUntil) {
        List<Lease> lost = new ArrayList<>();
        for (Lease lease : leases) {
            boolean heldByAnother = this.retry.run("renew the lease on " + lease.taskId(),
                    () -> inTransactionUnsynced(connection -> !renewLease(connection, lease, leaseUntil)
                            && heldByAnother(connection, lease)));
            if (heldByAnother) {
                lost.add(lease);
            }
        }
        return lost;
    }

    @Override
    public void recordStep(Lease lease, StepRow step, @Nullable AttemptRow attempt, long now, long leaseUntil) {
        String what = "record step " + step.position() + " of " + lease.taskId();
        if (this.dialect == SqlDialect.POSTGRESQL && attempt == null && leaseUntil > now && waited(step)) {
            // a delay, an event or a child's end: its PENDING row completed (or the step inserted, when it waited for
            // nothing: a delay of zero, an event wait already timed out)
            if (this.retry.run(what, () -> recordStepsAtOnce(lease, List.of(step), null, now, leaseUntil))) {
                return;
            }
        }
        else if (this.dialect == SqlDialect.POSTGRESQL) {
            @Nullable Boolean recorded = this.retry.run(what, () -> recordFreshStep(lease, step, attempt, now,
                    leaseUntil));
            if (recorded == null) {
                // the lease to extend or updated_at to move (or the lease lost, or the row locked by another
                // transaction): the fence that updates, one statement, which waits for any lock
                recorded = this.retry.run(what, () -> recordNewStep(lease, step, attempt, now, leaseUntil, false));
            }
            if (Boolean.TRUE.equals(recorded)) {
                return;
            }
        }
        this.retry.run(what, () -> inGroup(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            writeStep(connection, step);
            writeAttempt(connection, step, attempt);
            return null;
        }));
    }

    /**
     * The step on PostgreSQL under the fence that locks the row when the lease is fresh: with the steps of other
     * executions that wait while another such statement runs ({@link PostgreSqlStepBatches}) when the step has no
     * attempt row to insert, on its own otherwise.
     * @return as {@link #recordNewStep}
     */
    private @Nullable Boolean recordFreshStep(Lease lease, StepRow step, @Nullable AttemptRow attempt, long now,
            long leaseUntil) throws SQLException {
        PostgreSqlStepBatches batches = this.stepBatches;
        boolean implied = attempt != null && impliedByStep(step, attempt);
        if (leaseUntil <= now || batches == null || (attempt != null && !implied)) {
            return recordNewStep(lease, step, attempt, now, leaseUntil, leaseUntil > now);
        }
        PostgreSqlStepBatches.Outcome outcome = batches.record(lease, step,
                implied ? Objects.requireNonNull(attempt).number() : null, now, leaseUntil, () -> {
                    @Nullable Boolean recorded = recordNewStep(lease, step, attempt, now, leaseUntil, true);
                    return (recorded == null) ? PostgreSqlStepBatches.Outcome.NOT_FRESH
                            : recorded ? PostgreSqlStepBatches.Outcome.INSERTED : PostgreSqlStepBatches.Outcome.TAKEN;
                });
        return switch (outcome) {
            case INSERTED -> Boolean.TRUE;
            case TAKEN -> Boolean.FALSE;
            // the lease to extend (or lost), or the row locked by another transaction: the updating fence, which waits
            case NOT_FRESH, LOCKED -> null;
        };
    }

    /**
     * The usual step on PostgreSQL, a new one, in one statement and one round trip: the fence, the step and its attempt
     * are parts of one statement, committed on its own (no BEGIN, no COMMIT to send). The inserts read from the fence,
     * so a runner that lost its lease writes nothing.
     * <p>
     * When the lease has at least half of the asked-for extension left and {@code updated_at} is within
     * {@link #UPDATED_AT_GRANULARITY_MILLIS} (most steps: the renewals and the step that finds it otherwise extend
     * it), the fence locks the execution's row ({@code FOR SHARE}) rather than updating it: the lock marks the row's
     * header, where an update would write a new version of the whole row (its arguments included) to the table and the
     * log with every step, and fill its page with dead versions. No claim takes the row while the step holds it (a
     * claim locks the rows it takes {@code FOR UPDATE SKIP LOCKED} and passes a locked one by; a step that finds the
     * row locked by a claim passes it by, then waits for it with the updating fence and finds the token changed and
     * writes nothing), and a claim takes a RUNNING execution only once its lease has ended, half a lease away. When the
     * locking fence finds nothing (the lease to extend, {@code updated_at} to move, the lease lost, or the row locked by
     * another transaction), the caller runs the statement again with the fence that updates the row.
     * @param locking whether the fence locks the row rather than updating it
     * @return whether the step and its attempt were inserted; {@code false} when the position or the attempt was taken
     * (a PENDING step to complete, or a retry of a step whose acknowledgement was lost): the general path decides;
     * {@code null} when the locking fence found nothing
     * @throws LeaseLostException if the lease is no longer held (the fence that updates found nothing)
     */
    private @Nullable Boolean recordNewStep(Lease lease, StepRow step, @Nullable AttemptRow given, long now,
            long leaseUntil, boolean locking) throws SQLException {
        boolean implied = impliedByStep(step, given);
        @Nullable AttemptRow attempt = implied ? null : given;
        StringBuilder sql = new StringBuilder(locking ? LOCKING_FENCE : UPDATING_FENCE)
            .append(", step AS (").append(insertStepFrom("fence"))
            // an implied attempt whose number is taken is not this step's to record: the general path refuses it
            .append(implied ? " WHERE " + IMPLIED_ATTEMPT_FREE : "")
            .append(" ON CONFLICT (task_id, position) DO NOTHING RETURNING 1)");
        List<@Nullable Object> values = new ArrayList<>(locking ? freshLease(lease, now, leaseUntil)
                : extendedLease(lease, now, leaseUntil));
        values.addAll(stepValues(step));
        if (implied) {
            values.addAll(impliedAttemptValues(step, Objects.requireNonNull(given)));
        }
        if (attempt != null) {
            sql.append(", attempt AS (INSERT INTO skail_attempt (").append(ATTEMPT_COLUMNS).append(") SELECT "
                    + "CAST(? AS VARCHAR), CAST(? AS INT), CAST(? AS VARCHAR), CAST(? AS INT), CAST(? AS INT), "
                    + "CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS VARCHAR), CAST(? AS TEXT), CAST(? AS VARCHAR), "
                    + "CAST(? AS BIGINT) FROM step ON CONFLICT (task_id, position, function_attempt, number) "
                    + "DO NOTHING RETURNING 1)");
            values.addAll(java.util.Arrays.asList(attempt.taskId(), attempt.position(), attempt.name(),
                    attempt.functionAttempt(), attempt.number(), attempt.startedAt(), attempt.endedAt(),
                    attempt.outcome(), attempt.error(), attempt.decision(), attempt.backoffMillis()));
            sql.append(" SELECT (SELECT COUNT(*) FROM fence), (SELECT COUNT(*) FROM step), (SELECT COUNT(*) FROM attempt)");
        }
        else {
            sql.append(" SELECT (SELECT COUNT(*) FROM fence), (SELECT COUNT(*) FROM step), 1");
        }
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
                bind(ps, values.toArray());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        if (locking) {
                            return null;
                        }
                        throw new LeaseLostException(lease.taskId());
                    }
                    // the attempt is inserted from the step's row: a step taken already leaves it to the general path
                    return rs.getLong(2) == 1 && rs.getLong(3) == 1;
                }
            }
        }
    }

    /**
     * The execution's row as the lease leaves it (its token, RUNNING) when the step needs no change of it: at least half
     * of the asked-for extension left, {@code updated_at} within {@link #UPDATED_AT_GRANULARITY_MILLIS}; the
     * parameters are {@link #freshLease}'s.
     */
    static final String FRESH_LEASE = "task_id = ? AND lease_token = ? AND status = 'RUNNING' "
            + "AND lease_until >= ? AND updated_at > ?";

    /**
     * The fence that extends the lease and moves {@code updated_at} when it is {@link #UPDATED_AT_GRANULARITY_MILLIS}
     * behind; the parameters are {@link #extendedLease}'s.
     */
    private static final String EXTEND_LEASE = "UPDATE skail_execution SET lease_until = ?, updated_at = CASE "
            + "WHEN updated_at <= ? THEN ? ELSE updated_at END WHERE task_id = ? AND lease_token = ? "
            + "AND status = 'RUNNING'";

    /**
     * {@link #recordNewStep}'s fence when the row needs no change: a lock, which passes the row by when another
     * transaction holds it (the step then runs again with the updating fence, which waits for that transaction): a
     * step that {@link PostgreSqlStepBatches} writes alone never keeps the steps queued behind it waiting on a row lock.
     */
    private static final String LOCKING_FENCE = "WITH fence AS (SELECT task_id FROM skail_execution WHERE "
            + FRESH_LEASE + " FOR SHARE SKIP LOCKED)";

    /** {@link #recordNewStep}'s fence otherwise. */
    private static final String UPDATING_FENCE = "WITH fence AS (" + EXTEND_LEASE + " RETURNING task_id)";

    /** The values of {@link #FRESH_LEASE}'s parameters. */
    static List<Object> freshLease(Lease lease, long now, long leaseUntil) {
        return List.of(lease.taskId(), lease.token(), freshLeaseAtLeast(now, leaseUntil),
                freshLeaseUpdatedAfter(now));
    }

    /** {@link #FRESH_LEASE}'s bound on the lease's end: half the lease still ahead. */
    static long freshLeaseAtLeast(long now, long leaseUntil) {
        return now + (leaseUntil - now) / 2;
    }

    /** {@link #FRESH_LEASE}'s bound on the row's last update. */
    static long freshLeaseUpdatedAfter(long now) {
        return now - UPDATED_AT_GRANULARITY_MILLIS;
    }

    /** The values of {@link #EXTEND_LEASE}'s parameters. */
    private static List<Object> extendedLease(Lease lease, long now, long leaseUntil) {
        return List.of(leaseUntil, now - UPDATED_AT_GRANULARITY_MILLIS, now, lease.taskId(), lease.token());
    }

    /**
     * The steps kept back and the step of this write, under one fence, in one transaction (one commit; on PostgreSQL
     * one statement while the lease is fresh).
     */
    @Override
    public void recordSteps(Lease lease, List<StepRow> steps, @Nullable AttemptRow attempt, long now,
            long leaseUntil) {
        if (steps.size() == 1) {
            recordStep(lease, steps.get(0), attempt, now, leaseUntil);
            return;
        }
        String what = "record steps " + positions(steps) + " of " + lease.taskId();
        if (this.dialect == SqlDialect.POSTGRESQL && leaseUntil > now
                && (attempt == null || impliedByStep(steps.get(steps.size() - 1), attempt))
                && this.retry.run(what, () -> recordStepsAtOnce(lease, steps, attempt, now, leaseUntil))) {
            return;
        }
        this.retry.run(what, () -> inGroup(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            for (StepRow step : steps) {
                writeStep(connection, step);
            }
            writeAttempt(connection, steps.get(steps.size() - 1), attempt);
            return null;
        }));
    }

    /**
     * Steps recorded together on PostgreSQL (a delay, an event or a child's end kept back, then the step after it) in
     * one statement and one round trip while the lease is fresh, as {@link #recordNewStep} records one: the locking
     * fence; each step that ends a wait completes its PENDING row, or is inserted when its position has none (a delay
     * of zero, an event wait already timed out), as {@code writeStep} does; the other steps inserted; all reading from
     * the fence, committed on its own. The general path's transaction took four round trips (its fence, each step,
     * the commit): D's wake records its delay and its command this way.
     * <p>
     * All or nothing, as the general path's transaction is: when the fence holds but a step is not written (its
     * position taken, by a retry's own row or by another step; the implied attempt's number taken), the statement's
     * last expression divides by zero on purpose, PostgreSQL rolls the whole statement back, and the general path
     * decides on a store as it was.
     * @param attempt none, or the last step's implied attempt (its number checked as {@link #recordNewStep} does)
     * @return whether every step was written under the fence; otherwise nothing was written: the lease to extend or
     * lost, the row locked by another transaction, a step's position taken
     */
    private boolean recordStepsAtOnce(Lease lease, List<StepRow> steps, @Nullable AttemptRow attempt, long now,
            long leaseUntil) throws SQLException {
        StringBuilder sql = new StringBuilder(LOCKING_FENCE);
        List<@Nullable Object> values = new ArrayList<>(freshLease(lease, now, leaseUntil));
        // the parts that each write a row: their counts add up to the steps written
        List<String> writes = new ArrayList<>();
        for (int i = 0; i < steps.size(); i++) {
            StepRow step = steps.get(i);
            boolean waited = waited(step);
            if (waited) {
                sql.append(", c").append(i).append(" AS (").append(COMPLETE_PENDING)
                    .append(" AND EXISTS (SELECT 1 FROM fence) RETURNING 1)");
                values.addAll(completePendingValues(step));
                writes.add("c" + i);
            }
            boolean implied = i == steps.size() - 1 && attempt != null;
            sql.append(", s").append(i).append(" AS (").append(insertStepFrom("fence")).append(" WHERE TRUE")
                .append(waited ? " AND NOT EXISTS (SELECT 1 FROM c" + i + ")" : "")
                .append(implied ? " AND " + IMPLIED_ATTEMPT_FREE : "")
                .append(" ON CONFLICT (task_id, position) DO NOTHING RETURNING 1)");
            values.addAll(stepValues(step));
            if (implied) {
                values.addAll(impliedAttemptValues(step, Objects.requireNonNull(attempt)));
            }
            writes.add("s" + i);
        }
        // the fence found nothing: nothing was written (0); every step written (1); otherwise 1 / 0, which rolls back
        // what the statement wrote
        sql.append(", counted AS (SELECT (SELECT COUNT(*) FROM fence) AS fenced, ")
            .append(writes.stream().map((cte) -> "(SELECT COUNT(*) FROM " + cte + ")")
                .collect(java.util.stream.Collectors.joining(" + ")))
            .append(" AS written) SELECT CASE WHEN fenced = 0 THEN 0 WHEN written = ").append(steps.size())
            .append(" THEN 1 ELSE 1 / (written - written) END FROM counted");
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
                bind(ps, values.toArray());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 1;
                }
            }
            catch (SQLException ex) {
                if (DIVISION_BY_ZERO.equals(ex.getSQLState())) {
                    return false;
                }
                throw ex;
            }
        }
    }

    /** PostgreSQL's SQLSTATE for a division by zero: {@link #recordStepsAtOnce}'s way to roll itself back. */
    private static final String DIVISION_BY_ZERO = "22012";

    private static String positions(List<StepRow> steps) {
        return steps.stream().map((step) -> Integer.toString(step.position())).collect(
                java.util.stream.Collectors.joining(", "));
    }

    @Override
    public void recordAttempt(Lease lease, AttemptRow attempt, long now, long leaseUntil) {
        this.retry.run("record an attempt of " + lease.taskId(), () -> inGroup(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            insertAttempt(connection, attempt);
            return null;
        }));
    }

    @Override
    public void suspend(Lease lease, Suspend suspend, long now) {
        suspend(lease, List.of(), suspend, now, now);
    }

    /** The suspension and the steps kept back in one transaction: a delay goes to sleep in one commit. */
    @Override
    public void suspend(Lease lease, List<StepRow> steps, Suspend suspend, long now, long leaseUntil) {
        String what = "suspend " + lease.taskId();
        if (this.dialect == SqlDialect.POSTGRESQL && suspend.events().isEmpty() && suspend.children().isEmpty()
                && steps.stream().noneMatch(JdbcExecutionStore::waited)
                && this.retry.run(what, () -> suspendAtOnce(lease, steps, suspend, now))) {
            return;
        }
        this.retry.run(what, () -> inGroup(connection -> {
            // the row is locked first, as fire and a child's end lock it: one that comes while this transaction
            // holds the lock waits for its commit, then finds the row WAITING and makes it due; one that committed
            // before the lock is found below (read after it, never before: it would be missed)
            endLease(connection, lease, "status = ?, next_run_at = ?, updated_at = ?", suspend.status().name(),
                    suspend.nextRunAt(), now);
            if (awaitedArrived(connection, lease.taskId(), suspend)) {
                update(connection, "UPDATE skail_execution SET next_run_at = ? WHERE task_id = ?", now,
                        lease.taskId());
            }
            for (StepRow step : steps) {
                writeStep(connection, step);
            }
            return null;
        }));
    }

    /**
     * A suspension that waits for nothing but time (a delay, a redelivery's backoff) on PostgreSQL, with the new steps
     * kept back for it (the delay's PENDING row), in one statement and one round trip: the lease ended by the fenced
     * update, each step inserted from its answer, committed on its own (the general path's transaction took three
     * round trips). All or nothing: a step whose position is taken fails the statement, which then writes nothing,
     * and the general path decides (a retry's own row, or a conflict). No event or child is awaited, so nothing can
     * have arrived that would make it due at once.
     * @return whether the execution was suspended with its steps; {@code false} when a step's position was taken
     * @throws LeaseLostException if the lease is no longer held (nothing written)
     */
    private boolean suspendAtOnce(Lease lease, List<StepRow> steps, Suspend suspend, long now) throws SQLException {
        StringBuilder sql = new StringBuilder("WITH ended AS (UPDATE skail_execution SET status = ?, next_run_at = ?, "
                + "updated_at = ?, " + LEASE_ENDED + " RETURNING task_id)");
        List<@Nullable Object> values = new ArrayList<>(java.util.Arrays.asList(suspend.status().name(),
                suspend.nextRunAt(), now, lease.taskId(), lease.token()));
        for (int i = 0; i < steps.size(); i++) {
            sql.append(", s").append(i).append(" AS (").append(insertStepFrom("ended")).append(" RETURNING 1)");
            values.addAll(stepValues(steps.get(i)));
        }
        sql.append(" SELECT (SELECT COUNT(*) FROM ended)");
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
                bind(ps, values.toArray());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getLong(1) != 1) {
                        throw new LeaseLostException(lease.taskId());
                    }
                    return true;
                }
            }
            catch (SQLException ex) {
                if (this.dialect.isUniqueViolation(ex)) {
                    return false;
                }
                throw ex;
            }
        }
    }

    /** Whether an awaited event is kept or an awaited child has ended: then the execution is due at once. */
    private static boolean awaitedArrived(Connection connection, String taskId, Suspend suspend) throws SQLException {
        for (String name : suspend.events()) {
            try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM skail_event WHERE task_id = ? "
                    + "AND name = ? AND consumed_position IS NULL")) {
                ps.setString(1, taskId);
                ps.setString(2, name);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return true;
                    }
                }
            }
        }
        for (String child : suspend.children()) {
            try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM skail_execution WHERE task_id = ? "
                    + "AND status IN ('COMPLETED', 'FAILED', 'CANCELLED')")) {
                ps.setString(1, child);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Override
    public void startChild(Lease lease, StepRow step, ExecutionRow child, List<Tag> childTags, long now,
            long leaseUntil) {
        this.retry.run("start child " + child.taskId(), () -> inTransaction(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            insertChild(connection, child);
            insertTags(connection, child.taskId(), childTags);
            writeStep(connection, step);
            return null;
        }));
    }

    @Override
    public Optional<EventRow> takeEvent(Lease lease, String name, Function<EventRow, StepRow> step, long now,
            long leaseUntil) {
        return this.retry.run("take event " + name + " of " + lease.taskId(), () -> inTransaction(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            EventRow event = firstEvent(connection, "task_id = ? AND name = ? AND consumed_position IS NULL "
                    + "ORDER BY id", lease.taskId(), name);
            // the step's position does not depend on the event: any event of this name tells it; the newest consumed
            // one serves when none is kept (a retry of a take whose commit succeeded, that consumed the last one)
            EventRow probe = (event != null) ? event : firstEvent(connection, "task_id = ? AND name = ? "
                    + "AND consumed_position IS NOT NULL ORDER BY id DESC", lease.taskId(), name);
            if (probe == null) {
                return Optional.<EventRow>empty();
            }
            int position = step.apply(probe).position();
            EventRow consumed = firstEvent(connection, "task_id = ? AND name = ? AND consumed_position = ? "
                    + "ORDER BY id", lease.taskId(), name, position);
            if (consumed != null) {
                // this wait has taken its event already: a retry after a lost commit acknowledgement gets the same
                writeStep(connection, step.apply(consumed));
                return Optional.of(consumed);
            }
            if (event == null) {
                return Optional.<EventRow>empty();
            }
            StepRow recorded = step.apply(event);
            update(connection, "UPDATE skail_event SET consumed_position = ? WHERE id = ?", recorded.position(),
                    event.id());
            writeStep(connection, recorded);
            return Optional.of(event);
        }));
    }

    private static @Nullable EventRow firstEvent(Connection connection, String condition, Object... values)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT id, task_id, name, payload, fired_at, "
                + "consumed_position FROM skail_event WHERE " + condition + " FETCH FIRST 1 ROWS ONLY")) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? eventRow(rs) : null;
            }
        }
    }

    @Override
    public FireOutcome fire(String taskId, String name, @Nullable String payload, String eventKey, long now) {
        return this.retry.run("fire " + name + " at " + taskId, () -> inTransaction(connection -> {
            // the row is locked first: a runner suspending the execution either sees the event or is WAITING already
            String status = null;
            try (PreparedStatement ps = connection.prepareStatement("SELECT status FROM skail_execution "
                    + "WHERE task_id = ? FOR UPDATE")) {
                ps.setString(1, taskId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        status = rs.getString(1);
                    }
                }
            }
            if (status == null) {
                return FireOutcome.NOT_FOUND;
            }
            try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM skail_event WHERE task_id = ? "
                    + "AND event_key = ?")) {
                ps.setString(1, taskId);
                ps.setString(2, eventKey);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        // kept already: a repeated request, or a retry after a lost acknowledgement, even if the
                        // execution has consumed it and ended since
                        return FireOutcome.FIRED;
                    }
                }
            }
            if (ExecutionStatus.valueOf(status).isTerminal()) {
                return FireOutcome.ENDED;
            }
            update(connection, "INSERT INTO skail_event (task_id, name, payload, fired_at, event_key) "
                    + "VALUES (?, ?, ?, ?, ?)", taskId, name, payload, now, eventKey);
            // a waiting execution is due at once; a running one checks for kept events when it suspends
            if (update(connection, "UPDATE skail_execution SET next_run_at = ?, updated_at = ? WHERE task_id = ? "
                    + "AND status = 'WAITING'", now, now, taskId) == 1) {
                this.customization.announceDue(connection, taskId);
            }
            return FireOutcome.FIRED;
        }));
    }

    @Override
    public void scheduleFunctionRetry(Lease lease, AttemptRow attempt, Set<Integer> dropped, long nextRunAt,
            long now) {
        this.retry.run("schedule a function retry of " + lease.taskId(), () -> inGroup(connection -> {
            endLease(connection, lease, "status = 'PENDING', next_run_at = ?, updated_at = ?, "
                    + "attempt = attempt + 1, retries_used = retries_used + 1", nextRunAt, now);
            insertAttempt(connection, attempt);
            for (Integer position : dropped) {
                update(connection, "DELETE FROM skail_step WHERE task_id = ? AND position = ? AND status = 'FAILED' "
                        + "AND kind = 'COMMAND'", lease.taskId(), position);
            }
            return null;
        }));
    }

    /**
     * Drops the last step when it is a failed command, so that a resume runs its attempts again. Only that one: a
     * failed command before it (a compensation that failed after a failed charge) stays, or the charge would run
     * again after its compensation; a failed child stays failed (its own retries are spent).
     */
    private void dropLastFailedCommand(Connection connection, String taskId) throws SQLException {
        List<StepRow> steps = steps(connection, taskId);
        if (!steps.isEmpty() && StepRow.FAILED.equals(steps.get(steps.size() - 1).status())
                && StepRow.COMMAND.equals(steps.get(steps.size() - 1).kind())) {
            update(connection, "DELETE FROM skail_step WHERE task_id = ? AND position = ?", taskId,
                    steps.get(steps.size() - 1).position());
        }
    }

    @Override
    public void complete(Lease lease, @Nullable String resultJson, long now) {
        completeAndTell(lease, resultJson, now);
    }

    /**
     * {@inheritDoc}
     * <p>
     * On PostgreSQL the end's one statement returns the row it wrote and the execution's tags; on H2 nothing is told.
     */
    @Override
    public @Nullable TaggedExecution completeAndTell(Lease lease, @Nullable String resultJson, long now) {
        if (this.dialect == SqlDialect.POSTGRESQL) {
            try {
                return this.retry.run("complete " + lease.taskId(),
                        () -> completeInOneStatement(lease, resultJson, now));
            }
            finally {
                // also when its outcome is in doubt (an acknowledgement lost, then the lease found gone)
                announceEnded(lease.taskId());
            }
        }
        this.retry.run("complete " + lease.taskId(), () -> inGroup(connection -> {
            endLease(connection, lease, "status = 'COMPLETED', result = ?, next_run_at = NULL, updated_at = ?",
                    resultJson, now);
            update(connection, WAKE_PARENT, now, lease.taskId());
            this.customization.announceParentDue(connection, lease.taskId());
            return null;
        }));
        return null;
    }

    /**
     * The end of an execution on PostgreSQL in one statement and one round trip, committed on its own: the fenced
     * update, the parent's wake-up and its notification (sent at its commit), as {@link #complete} does in several
     * elsewhere. The end itself is announced after the commit ({@link #announceEnded}).
     * @return the execution as it ended, with its tags
     * @throws LeaseLostException if the lease is no longer held
     */
    private TaggedExecution completeInOneStatement(Lease lease, @Nullable String resultJson, long now)
            throws SQLException {
        try (Connection connection = this.dataSource.getConnection()) {
            connection.setAutoCommit(true);
            try (PreparedStatement ps = connection.prepareStatement(PostgreSqlJdbcCustomization.COMPLETE)) {
                ps.setString(1, resultJson);
                ps.setLong(2, now);
                ps.setString(3, lease.taskId());
                ps.setString(4, lease.token());
                ps.setLong(5, now);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next() || rs.getLong(1) == 0) {
                        throw new LeaseLostException(lease.taskId());
                    }
                    int row = PostgreSqlJdbcCustomization.COMPLETE_ROW;
                    int tags = row + EXECUTION_COLUMN_COUNT;
                    return new TaggedExecution(executionRow(rs, row), tags(rs.getArray(tags), rs.getArray(tags + 1)));
                }
            }
        }
    }

    /** Tags from their keys and values, two SQL arrays of one order. */
    private static List<Tag> tags(java.sql.Array keys, java.sql.Array values) throws SQLException {
        Object[] keyed = (Object[]) keys.getArray();
        Object[] valued = (Object[]) values.getArray();
        List<Tag> tags = new ArrayList<>(keyed.length);
        for (int i = 0; i < keyed.length; i++) {
            tags.add(new Tag((String) keyed[i], (String) valued[i]));
        }
        return tags;
    }

    @Override
    public void fail(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now) {
        try {
            failInGroup(lease, errorJson, attempt, now);
        }
        finally {
            announceEnded(lease.taskId());
        }
    }

    private void failInGroup(Lease lease, String errorJson, @Nullable AttemptRow attempt, long now) {
        this.retry.run("fail " + lease.taskId(), () -> inGroup(connection -> {
            endLease(connection, lease, "status = 'FAILED', error = ?, next_run_at = NULL, updated_at = ?",
                    errorJson, now);
            if (attempt != null) {
                insertAttempt(connection, attempt);
            }
            update(connection, WAKE_PARENT, now, lease.taskId());
            this.customization.announceParentDue(connection, lease.taskId());
            return null;
        }));
    }

    /**
     * Tells the other instances sharing the database that the execution has ended, once its end has committed or when
     * that is in doubt (callers may wait for its result there): on PostgreSQL only, soon and together with other ends;
     * this process's runtime tells its own waiters.
     */
    private void announceEnded(String taskId) {
        if (this.ends != null) {
            this.ends.announce(taskId);
        }
    }

    @Override
    public CancelOutcome requestCancel(String taskId, long now) {
        CancelOutcome outcome = ExecutionStore.super.requestCancel(taskId, now);
        if (outcome == CancelOutcome.REQUESTED) {
            // the event woke a WAITING execution; a PENDING one waiting for a backoff is due at once as well
            this.retry.run("cancel " + taskId, () -> inTransaction(connection -> {
                if (update(connection, "UPDATE skail_execution SET next_run_at = ?, updated_at = ? WHERE task_id = ? "
                        + "AND status = 'PENDING' AND next_run_at > ?", now, now, taskId, now) == 1) {
                    this.customization.announceDue(connection, taskId);
                }
                return null;
            }));
        }
        return outcome;
    }

    @Override
    public boolean cancelRequested(String taskId) {
        return this.retry.run("read the cancel request of " + taskId, () -> {
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM skail_event WHERE task_id = ? "
                            + "AND name = ?")) {
                ps.setString(1, taskId);
                ps.setString(2, CANCEL_EVENT);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        });
    }

    @Override
    public void recordCancel(Lease lease, StepRow step, long now, long leaseUntil) {
        this.retry.run("record the cancellation of " + lease.taskId(), () -> inTransaction(connection -> {
            requireLease(connection, lease, now, leaseUntil);
            update(connection, "DELETE FROM skail_step WHERE task_id = ? AND position = ? AND status = 'PENDING'",
                    step.taskId(), step.position());
            writeStep(connection, step);
            return null;
        }));
    }

    @Override
    public void cancelled(Lease lease, @Nullable String resultJson, String errorJson, long now) {
        try {
            this.retry.run("cancelled " + lease.taskId(), () -> inTransaction(connection -> {
                endLease(connection, lease, "status = 'CANCELLED', result = ?, error = ?, next_run_at = NULL, "
                        + "updated_at = ?", resultJson, errorJson, now);
                update(connection, WAKE_PARENT, now, lease.taskId());
                this.customization.announceParentDue(connection, lease.taskId());
                return null;
            }));
        }
        finally {
            announceEnded(lease.taskId());
        }
    }

    /**
     * The children of an execution that have not ended, found through its steps: a child is created with the step that
     * names it, in one transaction, and a cancellation that takes the place of a child's step keeps its name. The
     * steps are read by the primary key's first column, each child by its key: no index of parents to keep (schema
     * version 6 dropped it; H2 wrote it with every update of an execution, PostgreSQL with every change of status).
     */
    static final String RUNNING_CHILDREN = "SELECT e.task_id FROM skail_step s JOIN skail_execution e "
            + "ON e.task_id = s.child_task_id WHERE s.task_id = ? AND s.child_task_id IS NOT NULL "
            + "AND e.parent_task_id = ? AND e.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED') ORDER BY s.position";

    @Override
    public List<String> runningChildren(String taskId) {
        return this.retry.run("read the children of " + taskId, () -> {
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = connection.prepareStatement(RUNNING_CHILDREN)) {
                ps.setString(1, taskId);
                ps.setString(2, taskId);
                List<String> children = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        children.add(rs.getString(1));
                    }
                }
                return children;
            }
        });
    }

    @Override
    public boolean resume(String taskId, long now) {
        return this.retry.run("resume " + taskId, () -> inTransaction(connection -> {
            int resumed = update(connection, "UPDATE skail_execution SET status = 'PENDING', next_run_at = ?, "
                    + "updated_at = ?, error = NULL, attempt = attempt + 1, retries_used = 0, lease_owner = NULL, "
                    + "lease_token = NULL, lease_until = NULL WHERE task_id = ? AND status = 'FAILED'", now, now, taskId);
            if (resumed == 1) {
                dropLastFailedCommand(connection, taskId);
                this.customization.announceDue(connection, taskId);
            }
            return resumed == 1;
        }));
    }

    @Override
    public void release(Lease lease, long now) {
        // while a batch is being written, in the group's next one: a write of that batch (a claimed create whose
        // caller's deadline passed while it was being committed) is committed before this looks for the execution,
        // and is given back rather than left to its lease; otherwise in a transaction of its own, under the caller's
        // deadline (a release at shutdown must not wait for a store that hangs)
        GroupCommit group = this.groupCommit;
        SqlWork<@Nullable Void> work = (connection) -> releaseIn(connection, lease, now);
        this.retry.run("release " + lease.taskId(),
                () -> (group != null && group.isWriting()) ? group.run(work) : inTransaction(work));
    }

    private @Nullable Void releaseIn(Connection connection, Lease lease, long now) throws SQLException {
        // due again at once: whoever polls next picks it up
        if (update(connection, "UPDATE skail_execution SET status = 'PENDING', next_run_at = ?, updated_at = ?, "
                + "lease_owner = NULL, lease_token = NULL, lease_until = NULL "
                + "WHERE task_id = ? AND lease_token = ? AND status = 'RUNNING'", now, now, lease.taskId(),
                lease.token()) == 1) {
            this.customization.announceDue(connection, lease.taskId());
        }
        return null;
    }

    @Override
    public Map<String, Long> counts(String workload, String version, long now) {
        return this.retry.run("count executions", () -> {
            Map<String, Long> counts = new LinkedHashMap<>();
            for (ExecutionStatus status : ExecutionStatus.values()) {
                counts.put(status.name(), 0L);
            }
            try (Connection connection = this.dataSource.getConnection()) {
                try (PreparedStatement ps = connection.prepareStatement("SELECT status, COUNT(*) FROM skail_execution "
                        + "WHERE workload = ? AND version = ? GROUP BY status")) {
                    ps.setString(1, workload);
                    ps.setString(2, version);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            counts.put(rs.getString(1), rs.getLong(2));
                        }
                    }
                }
                long ready = 0;
                for (String sql : List.of(DUE_PENDING, DUE_WAITING, EXPIRED_RUNNING)) {
                    String count = "SELECT COUNT(*) FROM (" + sql.substring(0, sql.indexOf(" ORDER BY")) + ") due";
                    try (PreparedStatement ps = connection.prepareStatement(count)) {
                        ps.setString(1, workload);
                        ps.setString(2, version);
                        ps.setLong(3, now);
                        try (ResultSet rs = ps.executeQuery()) {
                            rs.next();
                            ready += rs.getLong(1);
                        }
                    }
                }
                counts.put("READY", ready);
            }
            return counts;
        });
    }

    /**
     * The ended executions to delete: ended before the first parameter (the second, the same time, bounds their
     * creation), and not the child of an execution that has not ended (it may still read the child's outcome). Read
     * through {@code skail_execution_status_recent (status, created_at, task_id)}: an execution that ended before a
     * time was created before it, so the bound on {@code created_at} only narrows the read, to the ended executions
     * created before the time; the ones of those that ended after it are read and left. (Instances whose clocks
     * differ may write a child's or an end's times a little out of order: such an execution is deleted as much
     * later.) Schema version 6 dropped the index of ended executions by end time, which every change of status
     * rewrote. (PostgreSQL may combine the indexes of creation and change times instead.) The parent is looked up by
     * key: no parent matches a {@code NULL}; an {@code OR parent_task_id IS NULL} made PostgreSQL read every execution
     * that had not ended.
     */
    static String endedBefore(int limit) {
        return "SELECT e.task_id FROM skail_execution e "
                + "WHERE e.status IN ('COMPLETED', 'FAILED', 'CANCELLED') AND e.updated_at < ? AND e.created_at < ? "
                + "AND NOT EXISTS (SELECT 1 FROM skail_execution p WHERE p.task_id = e.parent_task_id "
                + "AND p.status NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) "
                + "FETCH FIRST " + Math.max(1, limit) + " ROWS ONLY";
    }

    @Override
    public int deleteEndedBefore(long endedBefore, int limit) {
        return this.retry.run("delete ended executions", () -> inTransaction(connection -> {
            // a set: H2 2.4 may return a row twice when it reads an IN list through an index
            Set<String> ids = new java.util.LinkedHashSet<>();
            try (PreparedStatement ps = connection.prepareStatement(endedBefore(limit))) {
                ps.setLong(1, endedBefore);
                ps.setLong(2, endedBefore);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        ids.add(rs.getString(1));
                    }
                }
            }
            for (String table : List.of("skail_tag", "skail_event", "skail_attempt", "skail_step",
                    "skail_execution")) {
                try (PreparedStatement ps = connection.prepareStatement("DELETE FROM " + table + " WHERE task_id = ?")) {
                    for (String id : ids) {
                        ps.setString(1, id);
                        ps.addBatch();
                    }
                    if (!ids.isEmpty()) {
                        ps.executeBatch();
                    }
                }
            }
            return ids.size();
        }));
    }

    @Override
    public void heartbeat(String instanceId, String workload, String version, long now) {
        this.retry.run("note runtime " + instanceId, () -> inTransactionUnsynced(connection -> {
            if (update(connection, "UPDATE skail_runtime SET seen_at = ?, workload = ?, version = ? "
                    + "WHERE instance_id = ?", now, workload, version, instanceId) == 0) {
                insertIfAbsent(connection, "INSERT INTO skail_runtime (instance_id, workload, version, started_at, "
                        + "seen_at) VALUES (?, ?, ?, ?, ?)", "instance_id", instanceId, workload, version, now, now);
            }
            return null;
        }));
    }

    @Override
    public void forget(String instanceId) {
        this.retry.run("forget runtime " + instanceId, () -> inTransaction(connection -> update(connection,
                "DELETE FROM skail_runtime WHERE instance_id = ?", instanceId)));
    }

    @Override
    public Set<String> versionsServed(String workload, long seenSince) {
        return this.retry.run("read the runtimes of " + workload, () -> {
            try (Connection connection = this.dataSource.getConnection();
                    PreparedStatement ps = connection.prepareStatement("SELECT DISTINCT version FROM skail_runtime "
                            + "WHERE workload = ? AND seen_at >= ?")) {
                ps.setString(1, workload);
                ps.setLong(2, seenSince);
                Set<String> versions = new java.util.TreeSet<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        versions.add(rs.getString(1));
                    }
                }
                return versions;
            }
        });
    }

    /**
     * How far {@code updated_at} may lag behind the last recorded step of a running execution: it follows every
     * change of status at once, and the steps in between to the second.
     */
    static final long UPDATED_AT_GRANULARITY_MILLIS = 1000;

    /**
     * Ends the delivery's lease and sets the execution's new state in one {@code UPDATE}, fenced as
     * {@link #requireLease} fences (the lease's token, RUNNING), as the transaction's first write: a runner that lost
     * the lease writes nothing. (A fence, then an update of the same row, wrote the row twice in every execution's
     * end.)
     * @param set the columns to set besides the lease's, with {@code ?} for {@code values}
     * @throws LeaseLostException if the lease is no longer held
     */
    private static void endLease(Connection connection, Lease lease, String set, @Nullable Object... values)
            throws SQLException {
        Object[] all = Arrays.copyOf(values, values.length + 2);
        all[values.length] = lease.taskId();
        all[values.length + 1] = lease.token();
        if (update(connection, "UPDATE skail_execution SET " + set + ", " + LEASE_ENDED, all) != 1) {
            throw new LeaseLostException(lease.taskId());
        }
    }

    private void requireLease(Connection connection, Lease lease, long now, long leaseUntil) throws SQLException {
        if (!fence(connection, lease, now, leaseUntil)) {
            throw new LeaseLostException(lease.taskId());
        }
    }

    /**
     * Checks that the lease is still held, and extends it, in the transaction's first statement: a runner that lost
     * it (another took the execution over) writes nothing. {@code updated_at} moves only when it is at least
     * {@link #UPDATED_AT_GRANULARITY_MILLIS} behind: a function recording many steps a second changes no indexed
     * column on most steps, so PostgreSQL updates the row in place (a heap-only tuple) instead of adding an entry to
     * each of its indexes. H2 2.4 runs any {@code UPDATE} as a removal of the row from every index of the table and
     * an addition to each, whatever changed ({@code Table.updateRows}): there the step reads the lease instead when
     * it may ({@link #heldAsItIs}).
     */
    private boolean fence(Connection connection, Lease lease, long now, long leaseUntil) throws SQLException {
        boolean locking = this.dialect == SqlDialect.POSTGRESQL;
        if (leaseUntil > now && (locking || this.customization.ownedByThisProcess())) {
            if (heldAsItIs(connection, lease, now, leaseUntil, locking)) {
                return true;
            }
        }
        return update(connection, EXTEND_LEASE, extendedLease(lease, now, leaseUntil).toArray()) == 1;
    }

    /**
     * On H2, a step that would change nothing the fence's {@code UPDATE} changes in practice is checked by a read: the
     * lease is held with at least half of the asked-for extension left (the renewals and the next steps extend it)
     * and {@code updated_at} is within {@link #UPDATED_AT_GRANULARITY_MILLIS}. The execution's row is then not
     * rewritten, which H2 would otherwise write again with every step's commit (its page and the path to it: about a
     * quarter of a step's time, measured). Only on an H2 file this process owns (not in memory, not through a
     * server, not with {@code AUTO_SERVER}): nobody can take the execution over before this transaction commits, since
     * only this process opens the file, the runtime that runs the execution never claims it (its claims exclude what
     * it runs), and any claim takes a RUNNING execution only once its lease has ended, half a lease away. Between
     * steps, the lease is then kept by the renewals (every third of a lease) rather than by each step.
     * <p>
     * On PostgreSQL ({@code locking}), where other instances claim too, the read locks the row ({@code FOR SHARE}) until
     * the transaction ends, as the fence's update would (see {@code recordNewStep}), without a new version of the row
     * (its arguments included) with every step.
     * @return whether the lease is held and the row needs no change; otherwise the row must be updated (the lease
     * extended, or {@code updated_at} moved) or the lease is lost, which the update tells
     */
    private static boolean heldAsItIs(Connection connection, Lease lease, long now, long leaseUntil,
            boolean locking) throws SQLException {
        // the conditions in the statement: on PostgreSQL a row that needs the update is then not locked first, so the
        // update takes its lock at once (two writers of one execution that each held the row FOR SHARE, then both
        // updated it, would deadlock)
        try (PreparedStatement ps = connection.prepareStatement("SELECT 1 FROM skail_execution WHERE " + FRESH_LEASE
                + (locking ? " FOR SHARE" : ""))) {
            bind(ps, freshLease(lease, now, leaseUntil).toArray());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Renews the lease only: a renewal is not a change of the execution, so {@code updated_at} stays. */
    private boolean renewLease(Connection connection, Lease lease, long leaseUntil) throws SQLException {
        return update(connection, "UPDATE skail_execution SET lease_until = ? "
                + "WHERE task_id = ? AND lease_token = ? AND status = 'RUNNING'", leaseUntil, lease.taskId(),
                lease.token()) == 1;
    }

    /** Whether another runner holds the execution now (rather than its delivery having just ended). */
    private static boolean heldByAnother(Connection connection, Lease lease) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT lease_token FROM skail_execution "
                + "WHERE task_id = ?")) {
            ps.setString(1, lease.taskId());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getString(1) != null && !lease.token().equals(rs.getString(1));
            }
        }
    }

    /**
     * Inserts the step, or completes the PENDING step at its position. The same step recorded already is success (a
     * retry after a lost commit acknowledgement); a different one is a conflict.
     */
    private void writeStep(Connection connection, StepRow step) throws SQLException {
        // a delay, an event or a child that ends completes the PENDING row written when the function began to wait:
        // that update first, since an insert would fail on the row's key (and on H2 a failed statement empties the
        // session's cache of parsed statements: every statement after it on that connection was parsed again)
        boolean waited = waited(step);
        if (waited && completePending(connection, step) == 1) {
            return;
        }
        // the usual case in one statement: a new step; otherwise the PENDING step to complete, or a retry's own row
        boolean inserted = insertIfAbsent(connection, "INSERT INTO skail_step (" + STEP_COLUMNS + ") VALUES (?, ?, ?, ?, "
                + "?, ?, ?, ?, ?, ?, ?, ?, ?)", "task_id, position", step.taskId(), step.position(), step.kind(),
                step.name(), step.arguments(), step.status(), step.result(), step.error(), step.idempotencyKey(),
                step.functionAttempt(), step.startedAt(), step.completedAt(), step.childTaskId());
        if (inserted || (!waited && completePending(connection, step) == 1)) {
            return;
        }
        StoreConflicts.refuseUnlike(Objects.requireNonNull(findStep(connection, step.taskId(), step.position())),
                step);
    }

    /** Whether the step ends a wait: a delay, an event or a child whose PENDING row it completes. */
    private static boolean waited(StepRow step) {
        return !StepRow.PENDING.equals(step.status()) && WAITED_KINDS.contains(step.kind());
    }

    /** Completes the step's PENDING row, if it has one of the same kind and name; returns the rows updated. */
    private static int completePending(Connection connection, StepRow step) throws SQLException {
        return update(connection, COMPLETE_PENDING, completePendingValues(step).toArray());
    }

    /** The update that completes a step's PENDING row of the same kind and name ({@link #completePendingValues}). */
    private static final String COMPLETE_PENDING = "UPDATE skail_step SET status = ?, result = ?, error = ?, "
            + "completed_at = ? WHERE task_id = ? AND position = ? AND status = 'PENDING' AND kind = ? AND name = ?";

    private static List<@Nullable Object> completePendingValues(StepRow step) {
        return java.util.Arrays.asList(step.status(), step.result(), step.error(), step.completedAt(), step.taskId(),
                step.position(), step.kind(), step.name());
    }

    /**
     * On PostgreSQL, an insert of one step whose row is selected from {@code source} (a part of the same statement
     * answering one row when the lease holds: the fence), its values {@link #stepValues}'s: a runner that lost its
     * lease inserts nothing.
     */
    private static String insertStepFrom(String source) {
        return "INSERT INTO skail_step (" + STEP_COLUMNS + ") SELECT CAST(? AS VARCHAR), CAST(? AS INT), "
                + "CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS TEXT), CAST(? AS VARCHAR), CAST(? AS TEXT), "
                + "CAST(? AS TEXT), CAST(? AS VARCHAR), CAST(? AS INT), CAST(? AS BIGINT), CAST(? AS BIGINT), "
                + "CAST(? AS VARCHAR) FROM " + source;
    }

    /** The values of a step's row in the order of {@link #STEP_COLUMNS}. */
    private static List<@Nullable Object> stepValues(StepRow step) {
        return java.util.Arrays.asList(step.taskId(), step.position(), step.kind(), step.name(), step.arguments(),
                step.status(), step.result(), step.error(), step.idempotencyKey(), step.functionAttempt(),
                step.startedAt(), step.completedAt(), step.childTaskId());
    }

    /**
     * The condition that no attempt of the step's command has the implied attempt's number or a higher one
     * ({@link #impliedAttemptValues}): an implied attempt whose number is taken is not the step's to record.
     */
    private static final String IMPLIED_ATTEMPT_FREE = "NOT EXISTS (SELECT 1 FROM skail_attempt WHERE task_id = ? "
            + "AND position = ? AND function_attempt = ? AND number >= ?)";

    private static List<Object> impliedAttemptValues(StepRow step, AttemptRow attempt) {
        return List.of(step.taskId(), step.position(), step.functionAttempt(), attempt.number());
    }

    /** How an update ends the lease it is fenced by (the lease's task id and token are its parameters). */
    private static final String LEASE_ENDED = "lease_owner = NULL, lease_token = NULL, lease_until = NULL "
            + "WHERE task_id = ? AND lease_token = ? AND status = 'RUNNING'";

    /**
     * Inserts the row unless one with its key is there: one statement either way. PostgreSQL says so with
     * {@code ON CONFLICT DO NOTHING} (a failed statement would abort its transaction); H2 rolls back only the
     * statement that failed, so the unique violation itself says so.
     * @return whether the row was inserted
     */
    private boolean insertIfAbsent(Connection connection, String insert, String key, @Nullable Object... values)
            throws SQLException {
        if (this.dialect == SqlDialect.POSTGRESQL) {
            return update(connection, insert + " ON CONFLICT (" + key + ") DO NOTHING", values) == 1;
        }
        try {
            return update(connection, insert, values) == 1;
        }
        catch (SQLException ex) {
            if (this.dialect.isUniqueViolation(ex)) {
                return false;
            }
            throw ex;
        }
    }

    /**
     * Inserts the attempt. The same attempt recorded already is success (a retry after a lost commit
     * acknowledgement); a different one with its number is a conflict.
     */
    private void insertAttempt(Connection connection, AttemptRow attempt) throws SQLException {
        boolean inserted = insertIfAbsent(connection, "INSERT INTO skail_attempt (" + ATTEMPT_COLUMNS + ") VALUES (?, ?, "
                + "?, ?, ?, ?, ?, ?, ?, ?, ?)", "task_id, position, function_attempt, number", attempt.taskId(),
                attempt.position(), attempt.name(), attempt.functionAttempt(), attempt.number(), attempt.startedAt(),
                attempt.endedAt(), attempt.outcome(), attempt.error(), attempt.decision(), attempt.backoffMillis());
        if (inserted) {
            return;
        }
        StoreConflicts.refuseUnlike(Objects.requireNonNull(findAttempt(connection, attempt)), attempt);
    }

    /**
     * The attempt of a step's write, if any: inserted, or, when the step implies it ({@link #impliedByStep}), only
     * checked: a stored attempt with its number or a later one means the runner counted attempts that are not the
     * store's, and is refused as a row with that number would be (the same attempt as a row, written before, is
     * success).
     */
    private void writeAttempt(Connection connection, StepRow step, @Nullable AttemptRow given) throws SQLException {
        if (given == null) {
            return;
        }
        if (!impliedByStep(step, given)) {
            insertAttempt(connection, given);
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + ATTEMPT_COLUMNS + " FROM skail_attempt "
                + "WHERE task_id = ? AND position = ? AND function_attempt = ? AND number >= ? ORDER BY number")) {
            bind(ps, given.taskId(), given.position(), given.functionAttempt(), given.number());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    StoreConflicts.refuseUnlike(attemptRow(rs), given);
                }
            }
        }
    }

    /**
     * Inserts a child execution. The same child there already is success (a retry after a lost commit
     * acknowledgement, whatever the child has done since); another execution with its id is a conflict.
     */
    private void insertChild(Connection connection, ExecutionRow child) throws SQLException {
        ExecutionRow existing = findExecution(connection, child.taskId()).orElse(null);
        if (existing == null) {
            insertExecution(connection, child);
            return;
        }
        StoreConflicts.refuseUnlike(existing, child);
    }

    private static @Nullable StepRow findStep(Connection connection, String taskId, int position)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + STEP_COLUMNS + " FROM skail_step "
                + "WHERE task_id = ? AND position = ?")) {
            ps.setString(1, taskId);
            ps.setInt(2, position);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? stepRow(rs) : null;
            }
        }
    }

    private static @Nullable AttemptRow findAttempt(Connection connection, AttemptRow attempt) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("SELECT " + ATTEMPT_COLUMNS + " FROM skail_attempt "
                + "WHERE task_id = ? AND position = ? AND function_attempt = ? AND number = ?")) {
            ps.setString(1, attempt.taskId());
            ps.setInt(2, attempt.position());
            ps.setInt(3, attempt.functionAttempt());
            ps.setInt(4, attempt.number());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? attemptRow(rs) : null;
            }
        }
    }

    private static final String EXECUTION_BY_ID = "SELECT " + EXECUTION_COLUMNS + " FROM skail_execution "
            + "WHERE task_id = ?";

    private static final String STEPS_BY_ID = "SELECT " + STEP_COLUMNS + " FROM skail_step WHERE task_id = ? "
            + "ORDER BY position";

    private static final String ATTEMPTS_BY_ID = "SELECT " + ATTEMPT_COLUMNS + " FROM skail_attempt "
            + "WHERE task_id = ? ORDER BY position, function_attempt, number";

    private static final String EVENTS_BY_ID = "SELECT id, task_id, name, payload, fired_at, consumed_position "
            + "FROM skail_event WHERE task_id = ? ORDER BY id";

    /**
     * A history's four reads in one text: on PostgreSQL the driver sends them together and the server answers them
     * in one round trip (each statement in its own snapshot, as when they are sent one by one).
     */
    private static final String HISTORY_BY_ID = String.join("; ", EXECUTION_BY_ID, STEPS_BY_ID, ATTEMPTS_BY_ID,
            EVENTS_BY_ID);

    /** A row reader, for {@link #rows}. */
    @FunctionalInterface
    private interface RowReader<T> {

        T read(ResultSet rs) throws SQLException;
    }

    private static <T> List<T> rows(ResultSet rs, RowReader<T> reader) throws SQLException {
        List<T> rows = new ArrayList<>();
        while (rs.next()) {
            rows.add(reader.read(rs));
        }
        return rows;
    }

    private static <T> List<T> rows(Connection connection, String sql, String taskId, RowReader<T> reader)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            ps.setString(1, taskId);
            try (ResultSet rs = ps.executeQuery()) {
                return rows(rs, reader);
            }
        }
    }

    private Optional<ExecutionRow> findExecution(Connection connection, String taskId) throws SQLException {
        return rows(connection, EXECUTION_BY_ID, taskId, JdbcExecutionStore::executionRow).stream().findFirst();
    }

    private List<StepRow> steps(Connection connection, String taskId) throws SQLException {
        return rows(connection, STEPS_BY_ID, taskId, JdbcExecutionStore::stepRow);
    }

    private List<AttemptRow> attempts(Connection connection, String taskId) throws SQLException {
        return rows(connection, ATTEMPTS_BY_ID, taskId, JdbcExecutionStore::attemptRow);
    }

    /**
     * Whether {@code attempt} is the successful attempt that its command step implies, and so is not written: the
     * step's row holds all of it (its function attempt, its start and end; the outcome {@code SUCCEEDED}, decided
     * {@code RECORDED}), and its number is one more than the attempts that failed before it in that function attempt,
     * which are rows. Reading a history puts it back ({@link #withImpliedAttempts}). A command's step and its attempt
     * are then one row written, not two: each costs its indexes, and on H2 its pages written at the commit.
     */
    public static boolean impliedByStep(StepRow step, @Nullable AttemptRow attempt) {
        return attempt != null && StepRow.COMMAND.equals(step.kind()) && StepRow.COMPLETED.equals(step.status())
                && SkailAttempt.SUCCEEDED.equals(attempt.outcome()) && SkailAttempt.RECORDED.equals(attempt.decision())
                && attempt.error() == null && attempt.backoffMillis() == null
                && attempt.taskId().equals(step.taskId()) && attempt.position() == step.position()
                && attempt.name().equals(step.name()) && attempt.functionAttempt() == step.functionAttempt()
                && attempt.startedAt() == step.startedAt() && attempt.endedAt() == step.completedAt();
    }

    /**
     * The stored attempts with the successful attempt of each completed command step put back where it is not a row
     * ({@link #impliedByStep}), in the order of the rows: position, function attempt, number. A store written before
     * has that attempt as a row, and nothing is added for it.
     */
    public static List<AttemptRow> withImpliedAttempts(List<StepRow> steps, List<AttemptRow> stored) {
        // by position and function attempt: the highest number stored, negative once one of them succeeded
        Map<Long, Integer> numbers = new java.util.HashMap<>();
        for (AttemptRow attempt : stored) {
            numbers.merge(attemptKey(attempt.position(), attempt.functionAttempt()),
                    SkailAttempt.SUCCEEDED.equals(attempt.outcome()) ? -1 : attempt.number(),
                    (a, b) -> (a < 0 || b < 0) ? -1 : Math.max(a, b));
        }
        List<AttemptRow> attempts = null;
        for (StepRow step : steps) {
            if (!StepRow.COMMAND.equals(step.kind()) || !StepRow.COMPLETED.equals(step.status())) {
                continue;
            }
            int before = numbers.getOrDefault(attemptKey(step.position(), step.functionAttempt()), 0);
            if (before >= 0) {
                if (attempts == null) {
                    attempts = new ArrayList<>(stored);
                }
                attempts.add(new AttemptRow(step.taskId(), step.position(), step.name(), step.functionAttempt(),
                        before + 1, step.startedAt(), step.completedAt(), SkailAttempt.SUCCEEDED, null,
                        SkailAttempt.RECORDED, null));
            }
        }
        if (attempts == null) {
            return stored;
        }
        attempts.sort(java.util.Comparator.comparingInt(AttemptRow::position)
                .thenComparingInt(AttemptRow::functionAttempt).thenComparingInt(AttemptRow::number));
        return attempts;
    }

    private static long attemptKey(int position, int functionAttempt) {
        return ((long) position << 32) | (functionAttempt & 0xFFFFFFFFL);
    }

    private static StepRow stepRow(ResultSet rs) throws SQLException {
        return new StepRow(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getString(7), rs.getString(8), rs.getString(9), rs.getInt(10), rs.getLong(11),
                rs.getLong(12), rs.getString(13));
    }

    private static AttemptRow attemptRow(ResultSet rs) throws SQLException {
        long backoff = rs.getLong(11);
        Long backoffMillis = rs.wasNull() ? null : backoff;
        return new AttemptRow(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getInt(4), rs.getInt(5),
                rs.getLong(6), rs.getLong(7), rs.getString(8), rs.getString(9), rs.getString(10), backoffMillis);
    }

    static ExecutionRow executionRow(ResultSet rs) throws SQLException {
        return executionRow(rs, 1);
    }

    /** The execution whose {@link #EXECUTION_COLUMNS} start at column {@code first}. */
    static ExecutionRow executionRow(ResultSet rs, int first) throws SQLException {
        int at = first - 1;
        long next = rs.getLong(at + 11);
        Long nextRunAt = rs.wasNull() ? null : next;
        return new ExecutionRow(rs.getString(at + 1), rs.getString(at + 2), rs.getString(at + 3),
                rs.getString(at + 4), rs.getString(at + 5), ExecutionStatus.valueOf(rs.getString(at + 6)),
                rs.getString(at + 7), rs.getString(at + 8), rs.getInt(at + 9), rs.getInt(at + 10), nextRunAt,
                rs.getLong(at + 12), rs.getLong(at + 13), rs.getString(at + 14));
    }

    private List<EventRow> events(Connection connection, String taskId) throws SQLException {
        return rows(connection, EVENTS_BY_ID, taskId, JdbcExecutionStore::eventRow);
    }

    /** A history read in one round trip on PostgreSQL ({@link #HISTORY_BY_ID}). */
    private static Optional<StoredHistory> historyInOneRoundTrip(Connection connection, String taskId)
            throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(HISTORY_BY_ID)) {
            for (int index = 1; index <= 4; index++) {
                ps.setString(index, taskId);
            }
            ps.execute();
            List<ExecutionRow> execution = rows(ps.getResultSet(), JdbcExecutionStore::executionRow);
            List<StepRow> steps = next(ps, JdbcExecutionStore::stepRow);
            List<AttemptRow> attempts = next(ps, JdbcExecutionStore::attemptRow);
            List<EventRow> events = next(ps, JdbcExecutionStore::eventRow);
            if (execution.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new StoredHistory(execution.get(0), steps, withImpliedAttempts(steps, attempts),
                    events));
        }
    }

    private static <T> List<T> next(PreparedStatement ps, RowReader<T> reader) throws SQLException {
        if (!ps.getMoreResults()) {
            throw new SQLException("a history read answered fewer results than it asked for");
        }
        try (ResultSet rs = ps.getResultSet()) {
            return rows(rs, reader);
        }
    }

    private static EventRow eventRow(ResultSet rs) throws SQLException {
        int consumed = rs.getInt(6);
        Integer consumedPosition = rs.wasNull() ? null : consumed;
        return new EventRow(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                consumedPosition);
    }

    /** Runs one statement with its values bound in order ({@code null} as SQL NULL); also the schedule store's. */
    static int update(Connection connection, String sql, @Nullable Object... values) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            bind(ps, values);
            return ps.executeUpdate();
        }
    }

    /** Binds the values in order, a {@code null} as SQL NULL. */
    private static void bind(PreparedStatement ps, @Nullable Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            Object value = values[i];
            if (value == null) {
                ps.setNull(i + 1, Types.NULL);
            }
            else {
                ps.setObject(i + 1, value);
            }
        }
    }

    private <T> T inTransaction(SqlWork<T> work) throws SQLException {
        return inTransaction(this.dataSource, this.customization, work);
    }

    /**
     * Runs the work in a transaction that the writes of other executions may share ({@link GroupCommit}), and returns
     * once it would survive a power loss. The work must not commit or roll back itself.
     */
    private <T> T inGroup(SqlWork<T> work) throws SQLException {
        GroupCommit group = this.groupCommit;
        return (group != null) ? group.run(work) : inTransaction(work);
    }

    /**
     * Runs bookkeeping that acknowledges nothing (a lease renewal, a runtime's heartbeat) in one transaction, without
     * waiting for it to reach the disk: lost in a power loss, it is only done again.
     */
    private <T> T inTransactionUnsynced(SqlWork<T> work) throws SQLException {
        return inTransaction(this.dataSource, null, work);
    }

    /**
     * Runs the work in one transaction on a connection of its own, and returns once its commit would survive a power
     * loss ({@link JdbcCustomization#committed}); also how {@link JdbcScheduleStore} writes.
     */
    static <T> T inTransaction(DataSource dataSource, @Nullable JdbcCustomization customization, SqlWork<T> work)
            throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                T result = work.run(connection);
                connection.commit();
                // not told it is recorded before it would survive a power loss (null: nobody is told anything)
                if (customization != null) {
                    customization.committed(connection);
                }
                return result;
            }
            catch (SQLException | RuntimeException ex) {
                try {
                    connection.rollback();
                }
                catch (SQLException rollbackFailure) {
                    ex.addSuppressed(rollbackFailure);
                }
                throw ex;
            }
        }
    }

    @FunctionalInterface
    interface SqlWork<T> {

        T run(Connection connection) throws SQLException;
    }
}
