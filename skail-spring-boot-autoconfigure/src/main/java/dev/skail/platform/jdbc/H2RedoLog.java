package dev.skail.platform.jdbc;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The embedded store's write-ahead log: what each transaction changed in the store's tables (every changed row as it
 * is after the transaction, or the key of a row it deleted), appended before the transaction commits in H2 and
 * forced to the device before anyone is told the transaction is recorded. H2 then keeps its commits in memory and
 * writes them in the background ({@code WRITE_DELAY} above 0): a durable write costs one small append and one
 * {@code fdatasync} of this log, instead of H2 writing every page the transaction changed and forcing its file.
 * <p>
 * <b>What holds.</b>
 * <ul>
 * <li>A transaction's record is in the log (written, not yet forced) before its commit returns, and forced before the
 * commit's caller is told ({@link #force()}, through the group sync). A commit that fails appends an abort record for
 * it (a commit that never happened is not replayed).</li>
 * <li>H2 never has on its disk a commit the log has not forced: every write of H2 to its file forces the log first
 * (a hook in {@link H2PreallocatedFilePath}), so after a crash the file holds a prefix of what the log holds.</li>
 * <li>Records follow the commits' order for any row two transactions both change: the second one cannot change the
 * row before the first commits (H2's row locks), and the first appended its record before committing.</li>
 * <li>Replaying is applying every row image in order, from the start of the oldest segment: an image applied again
 * over the same or a later state of its row leaves the row as the last image says, so replaying more than needed
 * changes nothing ({@link #replay}).</li>
 * <li>A segment is deleted only after H2 has written and forced everything committed before the segment after it was
 * begun ({@link #checkpoint}).</li>
 * </ul>
 * The log is a series of segment files beside the database file, each preallocated with zeros (so that forcing what
 * is appended needs no change of the file system's own records), each record checksummed: a record torn by a crash
 * ends the log there.
 */
final class H2RedoLog implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(H2RedoLog.class);

    /** The size of a segment. */
    static final int SEGMENT = 8 << 20;

    /** A record: its payload's length, the checksum of sequence and payload, the sequence number, the payload. */
    private static final int RECORD_HEADER = 16;

    /** What a segment begins with: magic, the segment's number, the sequence number of its first record. */
    private static final int SEGMENT_HEADER = 24;

    private static final long MAGIC = 0x736b61696c524c31L;

    /** How many of the log's transactions a replay applies in one transaction of its own. */
    private static final int REPLAY_BATCH = 64;

    /** A record of the rows a transaction changed. */
    static final byte TRANSACTION = 1;

    /** A record saying that the transaction of an earlier record did not commit. */
    static final byte ABORT = 2;

    /** A row as it is after the transaction. */
    static final byte UPSERT = 1;

    /** A row the transaction deleted (the row as it was). */
    static final byte DELETE = 2;

    private static final byte NULL = 0;

    private static final byte STRING = 1;

    private static final byte LONG = 2;

    private static final byte INT = 3;

    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

    /** The logs of the databases open in this process, by H2 database object (what the triggers see). */
    private static final Map<Object, H2RedoLog> ACTIVE = new ConcurrentHashMap<>();

    private final Path directory;

    /** The file name of segment {@code n} is this prefix followed by {@code n}. */
    private final String prefix;

    /** Orders records and commits: held from a record's append to the end of its commit. */
    final ReentrantLock lock = new ReentrantLock();

    /** The segment appended to. Guarded by {@link #lock}; read without it by {@link #force()}. */
    private volatile Segment current;

    /** The next segment, zeroed ahead of the appends, or {@code null}. Guarded by {@link #lock}. */
    private @Nullable Segment next;

    /** Whether the next segment is being zeroed. Guarded by {@link #lock}. */
    private boolean preparing;

    /** Signalled when the next segment is zeroed. */
    private final java.util.concurrent.locks.Condition prepared = this.lock.newCondition();

    /** The sequence number of the last record appended (written to its segment, maybe not forced). */
    private volatile long appended;

    /** Every record up to this sequence number is forced. Guarded by {@link #forcing}. */
    private long forcedThrough;

    private final Object forcing = new Object();

    /** The sequence number of the next record. Guarded by {@link #lock}. */
    private long sequence;

    /** The changes each open transaction made so far, by H2 session. */
    private final Map<Object, Capture> captures = new ConcurrentHashMap<>();

    /** Runs when a segment is full and its successor begun: a checkpoint, after which older segments may go. */
    private final SegmentFull segmentFull;

    /** Set when the log cannot be trusted any more (an abort record that could not be written). */
    private volatile @Nullable IOException broken;

    private volatile boolean closed;

    /**
     * The least free space the log's file system must have for an append: room for the log's next segment and for
     * H2 to write what is committed. Below it, writes fail as on a full disk, before H2's own background writes do.
     */
    static final long MIN_FREE = 2L * SEGMENT;

    /** The file system of the log (and of H2's file). */
    private final java.nio.file.FileStore fileSystem;

    /** When the free space was last read ({@link System#nanoTime()}), and whether it was low. Guarded by {@link #lock}. */
    private long spaceReadAt = Long.MIN_VALUE / 2;

    private boolean spaceLow;

    private H2RedoLog(Path directory, String prefix, Segment first, long sequence, SegmentFull segmentFull)
            throws IOException {
        this.fileSystem = Files.getFileStore(directory);
        this.directory = directory;
        this.prefix = prefix;
        this.current = first;
        this.sequence = sequence;
        this.segmentFull = segmentFull;
    }

    /** What is called, on a thread of its own, once appends have moved on to segment {@code number}. */
    @FunctionalInterface
    interface SegmentFull {

        void moved(H2RedoLog log, long number);
    }

    /**
     * Begins a new log for the database file {@code database} ({@code /dir/skail} for {@code /dir/skail.mv.db}):
     * there must be no segment left (each was replayed and checkpointed, then {@link #deleteSegments}).
     */
    static H2RedoLog begin(Path database, SegmentFull segmentFull) throws IOException {
        Path directory = directoryOf(database);
        String prefix = database.getFileName() + ".redo.";
        if (!segments(directory, prefix).isEmpty()) {
            throw new IllegalStateException("The store's log still has segments in " + directory);
        }
        Segment first = Segment.create(directory.resolve(prefix + 1), 1, 1, SEGMENT);
        forceDirectory(directory);
        return new H2RedoLog(directory, prefix, first, 1, segmentFull);
    }

    private static Path directoryOf(Path database) {
        Path absolute = database.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent == null) {
            throw new IllegalArgumentException("No directory for " + database);
        }
        return parent;
    }

    /** The H2 database (the object H2 opened) whose triggers write to this log, or {@code null}. */
    private volatile @Nullable Object database;

    /** Makes this log the one the triggers of {@code h2Database} write to. */
    void activate(Object h2Database) {
        this.database = h2Database;
        ACTIVE.put(h2Database, this);
    }

    /** The H2 database this log is active for, or {@code null}. */
    @Nullable Object database() {
        return this.database;
    }

    /**
     * Has the triggers of {@code reopened} (H2 opened the file again: it had closed its database, after a failed
     * write, say) write to this log instead of those of the database it closed. Called holding {@link #lock}, once
     * what the log holds is replayed into {@code reopened}.
     */
    void rebind(Object reopened) {
        Object closed = this.database;
        if (closed != null) {
            ACTIVE.remove(closed, this);
        }
        this.captures.clear();
        activate(reopened);
    }

    /** The database file this log belongs to ({@code /dir/skail} for {@code /dir/skail.mv.db}). */
    Path file() {
        String name = this.prefix.substring(0, this.prefix.length() - ".redo.".length());
        return this.directory.resolve(name);
    }

    /** The active log of the H2 database {@code h2Database}, or {@code null}. */
    static @Nullable H2RedoLog of(Object h2Database) {
        return ACTIVE.get(h2Database);
    }

    /** Stops the triggers of {@code h2Database} from writing to this log. */
    void deactivate(Object h2Database) {
        ACTIVE.remove(h2Database, this);
    }

    // ---- capture (called by the triggers, in the thread of the statement) ----

    /** Adds the change of one row to what the session's transaction changed. */
    void captured(Object session, String table, Object @Nullable [] oldRow, Object @Nullable [] newRow)
            throws SQLException {
        Capture capture = this.captures.computeIfAbsent(session, (key) -> new Capture());
        try {
            if (newRow != null) {
                capture.image(UPSERT, table, newRow);
            }
            else if (oldRow != null) {
                capture.image(DELETE, table, oldRow);
            }
        }
        catch (IOException ex) {
            throw new SQLException("The store could not log a change of " + table + ": " + ex.getMessage(), ex);
        }
    }

    /** How much the session's transaction changed so far: where a savepoint set now is. */
    int mark(Object session) {
        Capture capture = this.captures.get(session);
        return (capture != null) ? capture.size() : 0;
    }

    /** Forgets what the session's transaction changed after {@code mark} (rolled back to a savepoint). */
    void rolledBackTo(Object session, int mark) {
        Capture capture = this.captures.get(session);
        if (capture != null) {
            capture.truncate(mark);
        }
    }

    /** Forgets what the session's transaction changed (rolled back, or its connection closed). */
    void discard(Object session) {
        this.captures.remove(session);
    }

    /**
     * Commits the session's transaction: its record appended first, then H2's commit; an abort record when that fails.
     * The record is forced later, by {@link #force()}, before anyone is told.
     */
    void commit(Object session, Connection connection) throws SQLException {
        Capture capture = this.captures.remove(session);
        if (capture == null || capture.size() == 0) {
            connection.commit();
            return;
        }
        this.lock.lock();
        try {
            long record;
            try {
                record = appendLocked(TRANSACTION, capture.bytes(), capture.size());
            }
            catch (IOException ex) {
                connection.rollback();
                throw new SQLException("The store could not write its log: " + ex.getMessage(), "08000", ex);
            }
            try {
                connection.commit();
            }
            catch (SQLException | RuntimeException | Error ex) {
                try {
                    appendAbortLocked(record);
                    // forced now: the caller is told the commit failed, and a replay must not apply it
                    force();
                }
                catch (IOException abortFailure) {
                    // the record of a commit that failed could be replayed: nothing more may be written
                    this.broken = abortFailure;
                    ex.addSuppressed(abortFailure);
                }
                throw ex;
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    // ---- the log's files ----

    private void appendAbortLocked(long record) throws IOException {
        byte[] payload = new byte[9];
        ByteBuffer.wrap(payload).put(ABORT).putLong(record);
        appendLocked(ABORT, payload, payload.length);
    }

    /**
     * Fails as a full disk does when the file system has less than {@link #MIN_FREE} left: a segment of the log is
     * written ahead, so its appends would still succeed while H2's file could not take what they hold. Read every
     * 100 ms, and at every append once it is low.
     */
    /** As {@link #checkSpace()}, reading the free space now when {@code now} holds (a probe of a full disk). */
    void checkSpace(boolean now) throws IOException {
        this.lock.lock();
        try {
            checkSpaceLocked(now);
        }
        finally {
            this.lock.unlock();
        }
    }

    private void checkSpaceLocked(boolean force) throws IOException {
        long now = System.nanoTime();
        if (!force && !this.spaceLow && now - this.spaceReadAt < 100_000_000L) {
            return;
        }
        long usable = this.fileSystem.getUsableSpace();
        this.spaceReadAt = now;
        this.spaceLow = usable < 4 * MIN_FREE;
        if (usable < MIN_FREE) {
            throw new IOException("No space left on device: " + usable / 1024 + " KiB free, and the store keeps "
                    + MIN_FREE / (1024 * 1024) + " MiB free for its log and its file");
        }
    }

    /** Appends one record; its payload's first byte is its kind. Returns its sequence number. */
    private long appendLocked(byte kind, byte[] payload, int length) throws IOException {
        IOException broken = this.broken;
        if (broken != null) {
            throw new IOException("the store's log failed before: " + broken.getMessage(), broken);
        }
        if (this.closed) {
            throw new IOException("the store's log is closed");
        }
        checkSpaceLocked(false);
        int size = RECORD_HEADER + length;
        Segment segment = this.current;
        if (segment.position + size > segment.capacity) {
            segment = moveOn(segment, SEGMENT_HEADER + size);
        }
        long seq = this.sequence++;
        ByteBuffer buffer = ByteBuffer.allocate(size).order(ByteOrder.BIG_ENDIAN);
        CRC32C crc = new CRC32C();
        ByteBuffer seqBytes = ByteBuffer.allocate(8).putLong(0, seq);
        crc.update(seqBytes);
        crc.update(payload, 0, length);
        buffer.putInt(length).putInt((int) crc.getValue()).putLong(seq).put(payload, 0, length).flip();
        long position = segment.position;
        while (buffer.hasRemaining()) {
            position += segment.channel.write(buffer, position);
        }
        segment.position = position;
        this.appended = seq;
        if (!this.preparing && this.next == null && segment.position > SEGMENT / 2) {
            prepareNext(segment.number + 1);
        }
        return seq;
    }

    /**
     * Forces the full segment, and appends go on in the next one (zeroed ahead, or now, as large as {@code needed}
     * bytes of header and record when that is more than a segment).
     */
    private Segment moveOn(Segment full, int needed) throws IOException {
        full.channel.force(false);
        Segment following = this.next;
        while (this.preparing) {
            // zeroed on another thread right now: wait for it rather than write the same file twice
            this.prepared.awaitUninterruptibly();
            following = this.next;
        }
        if (following == null || following.number != full.number + 1 || following.capacity < needed) {
            if (following != null) {
                following.channel.close();
                Files.deleteIfExists(this.directory.resolve(this.prefix + following.number));
            }
            following = Segment.create(this.directory.resolve(this.prefix + (full.number + 1)), full.number + 1,
                    this.sequence, Math.max(SEGMENT, needed));
            forceDirectory(this.directory);
        }
        else {
            following.begin(this.sequence);
        }
        this.next = null;
        this.current = following;
        full.channel.close();
        long number = following.number;
        Thread checkpoint = new Thread(() -> this.segmentFull.moved(this, number), "skail:h2-checkpoint");
        checkpoint.setDaemon(true);
        checkpoint.start();
        return following;
    }

    /** Zeroes segment {@code number} on a short-lived thread of its own, ahead of the appends. */
    private void prepareNext(long number) {
        this.preparing = true;
        Path file = this.directory.resolve(this.prefix + number);
        Thread zeroing = new Thread(() -> {
            Segment prepared = null;
            try {
                prepared = Segment.create(file, number, -1, SEGMENT);
                forceDirectory(this.directory);
            }
            catch (IOException | RuntimeException ex) {
                // a full disk, say: the segment is made when it is needed, and that append fails if it cannot be
                logger.debug("skail store: could not prepare the log's next segment", ex);
                try {
                    Files.deleteIfExists(file);
                }
                catch (IOException ignored) {
                    // made again when needed
                }
                prepared = null;
            }
            this.lock.lock();
            try {
                this.next = prepared;
                this.preparing = false;
                this.prepared.signalAll();
            }
            finally {
                this.lock.unlock();
            }
        }, "skail:h2-log-ahead");
        zeroing.setDaemon(true);
        zeroing.start();
    }

    /**
     * Forces every record appended so far to the device ({@code fdatasync}); a full segment was forced when appends
     * moved on from it.
     */
    void force() throws IOException {
        long target = this.appended;
        synchronized (this.forcing) {
            if (this.forcedThrough >= target) {
                // a force that began after that record was written covered it
                return;
            }
            Segment segment = this.current;
            try {
                segment.channel.force(false);
            }
            catch (java.nio.channels.ClosedChannelException ex) {
                // appends moved on meanwhile: the closed one was forced first
                this.current.channel.force(false);
            }
            this.forcedThrough = Math.max(this.forcedThrough, target);
        }
    }

    /** The segment appended to now. */
    long currentSegment() {
        this.lock.lock();
        try {
            return this.current.number;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Deletes the segments numbered below {@code number} (everything in them is in H2's file, forced). */
    void deleteSegmentsBefore(long number) throws IOException {
        for (Map.Entry<Long, Path> segment : segments(this.directory, this.prefix).entrySet()) {
            if (segment.getKey() < number) {
                Files.deleteIfExists(segment.getValue());
            }
        }
    }

    /** Whether this log ever failed to write, so that nothing more is written to it. */
    @Nullable IOException broken() {
        return this.broken;
    }

    @Override
    public void close() throws IOException {
        this.lock.lock();
        try {
            this.closed = true;
            this.current.channel.close();
            Segment following = this.next;
            if (following != null) {
                following.channel.close();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The segments in {@code directory} whose names begin with {@code prefix}, by number. */
    static java.util.TreeMap<Long, Path> segments(Path directory, String prefix) throws IOException {
        java.util.TreeMap<Long, Path> segments = new java.util.TreeMap<>();
        if (!Files.isDirectory(directory)) {
            return segments;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, prefix + "*")) {
            for (Path file : files) {
                String suffix = file.getFileName().toString().substring(prefix.length());
                try {
                    segments.put(Long.parseLong(suffix), file);
                }
                catch (NumberFormatException ex) {
                    // not a segment of this log
                }
            }
        }
        return segments;
    }

    /** The segments of the log of database file {@code database}. */
    static java.util.TreeMap<Long, Path> segmentsOf(Path database) throws IOException {
        return segments(directoryOf(database), database.getFileName() + ".redo.");
    }

    /** Deletes every segment of the log of {@code database}, and forces the directory. */
    static void deleteSegments(Path database) throws IOException {
        java.util.TreeMap<Long, Path> segments = segmentsOf(database);
        for (Path segment : segments.values()) {
            Files.deleteIfExists(segment);
        }
        if (!segments.isEmpty()) {
            forceDirectory(directoryOf(database));
        }
    }

    private static void forceDirectory(Path directory) {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
        catch (IOException ex) {
            // not every system opens a directory as a channel
        }
    }

    // ---- replay ----

    /**
     * Applies, on {@code connection}, every committed transaction of the log of {@code database} in the order of their
     * records, up to the first record a crash tore, {@value #REPLAY_BATCH} of them in each transaction. Returns how
     * many transactions were applied. Leaves the segments in place: delete them once H2's file is forced. The caller
     * stops H2's background writer first ({@code SET WRITE_DELAY 0}).
     */
    static int replay(Path database, Connection connection) throws IOException, SQLException {
        List<byte[]> transactions = new ArrayList<>();
        Set<Long> aborted = new HashSet<>();
        List<Long> sequences = new ArrayList<>();
        long expected = -1;
        for (Map.Entry<Long, Path> segment : segmentsOf(database).entrySet()) {
            long next = read(segment.getValue(), expected, transactions, sequences, aborted);
            if (next < 0) {
                // torn, or a segment begun but never written to: nothing after it was acknowledged
                break;
            }
            expected = next;
        }
        if (transactions.isEmpty()) {
            return 0;
        }
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        Replay replay = new Replay(connection);
        int applied = 0;
        try {
            for (int i = 0; i < transactions.size(); i++) {
                if (!aborted.contains(sequences.get(i))) {
                    replay.apply(transactions.get(i));
                    applied++;
                    if (applied % REPLAY_BATCH == 0) {
                        // transactions of the size the store writes, rather than one of the whole log (a replay cut
                        // off half-way is simply done again)
                        connection.commit();
                    }
                }
            }
            replay.afterwards();
            connection.commit();
        }
        catch (SQLException | IOException | RuntimeException ex) {
            connection.rollback();
            throw ex;
        }
        finally {
            replay.close();
            connection.setAutoCommit(autoCommit);
        }
        return applied;
    }

    /**
     * Reads the records of one segment. Returns the sequence number the next segment must begin with, or {@code -1}
     * when this segment ends the log (a torn record, or a sequence that does not follow).
     */
    private static long read(Path file, long expected, List<byte[]> transactions, List<Long> sequences,
            Set<Long> aborted) throws IOException {
        byte[] content = Files.readAllBytes(file);
        ByteBuffer buffer = ByteBuffer.wrap(content);
        if (content.length < SEGMENT_HEADER || buffer.getLong(0) != MAGIC) {
            return -1;
        }
        long first = buffer.getLong(16);
        if (first <= 0 || (expected > 0 && first != expected)) {
            return -1;
        }
        int position = SEGMENT_HEADER;
        long next = first;
        while (position + RECORD_HEADER <= content.length) {
            int length = buffer.getInt(position);
            if (length <= 0 || position + RECORD_HEADER + length > content.length) {
                break;
            }
            int checksum = buffer.getInt(position + 4);
            long seq = buffer.getLong(position + 8);
            CRC32C crc = new CRC32C();
            crc.update(content, position + 8, 8 + length);
            if ((int) crc.getValue() != checksum || seq != next) {
                // torn by a crash (or left from before in a reused file): the log ends here
                return -1;
            }
            byte[] payload = java.util.Arrays.copyOfRange(content, position + RECORD_HEADER,
                    position + RECORD_HEADER + length);
            if (payload[0] == TRANSACTION) {
                transactions.add(payload);
                sequences.add(seq);
            }
            else if (payload[0] == ABORT) {
                aborted.add(ByteBuffer.wrap(payload, 1, 8).getLong());
            }
            next++;
            position += RECORD_HEADER + length;
        }
        return next;
    }

    /** Applies row images: each table's upsert and delete statements prepared once. */
    private static final class Replay implements AutoCloseable {

        private final Connection connection;

        private final Map<String, Table> tables = new HashMap<>();

        private final Map<String, PreparedStatement> statements = new HashMap<>();

        private long maxEventId = -1;

        Replay(Connection connection) {
            this.connection = connection;
        }

        void apply(byte[] payload) throws IOException, SQLException {
            DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(payload, 1, payload.length - 1));
            while (in.available() > 0) {
                byte kind = in.readByte();
                String name = in.readUTF();
                int count = in.readUnsignedShort();
                Object[] row = new Object[count];
                for (int i = 0; i < count; i++) {
                    row[i] = readValue(in);
                }
                Table table = table(name);
                if (count != table.columns.size()) {
                    throw new SQLException("The store's log has " + count + " columns for " + name + ", the table has "
                            + table.columns.size());
                }
                if (kind == UPSERT) {
                    PreparedStatement upsert = statement("U" + name, table.upsert());
                    for (int i = 0; i < count; i++) {
                        upsert.setObject(i + 1, row[i]);
                    }
                    upsert.executeUpdate();
                    if ("SKAIL_EVENT".equals(name) && row[table.columns.indexOf("ID")] instanceof Long id) {
                        this.maxEventId = Math.max(this.maxEventId, id);
                    }
                }
                else {
                    PreparedStatement delete = statement("D" + name, table.delete());
                    int index = 1;
                    for (int key : table.keyPositions()) {
                        delete.setObject(index++, row[key]);
                    }
                    delete.executeUpdate();
                }
            }
        }

        /** The identity of the events goes on after the highest id replayed (H2 may have lost its own count). */
        void afterwards() throws SQLException {
            if (this.maxEventId < 0) {
                return;
            }
            long max = this.maxEventId;
            try (Statement statement = this.connection.createStatement();
                    ResultSet rs = statement.executeQuery("SELECT MAX(id) FROM skail_event")) {
                if (rs.next()) {
                    max = Math.max(max, rs.getLong(1));
                }
            }
            try (Statement statement = this.connection.createStatement()) {
                statement.execute("ALTER TABLE skail_event ALTER COLUMN id RESTART WITH " + (max + 1));
            }
        }

        private PreparedStatement statement(String key, String sql) throws SQLException {
            PreparedStatement statement = this.statements.get(key);
            if (statement == null) {
                statement = this.connection.prepareStatement(sql);
                this.statements.put(key, statement);
            }
            return statement;
        }

        private Table table(String name) throws SQLException {
            Table table = this.tables.get(name);
            if (table == null) {
                table = Table.read(this.connection, name);
                this.tables.put(name, table);
            }
            return table;
        }

        @Override
        public void close() {
            for (PreparedStatement statement : this.statements.values()) {
                try {
                    statement.close();
                }
                catch (SQLException ex) {
                    // the connection goes back to the pool, which closes what is left
                }
            }
        }
    }

    /** A table's columns in order, and its key. */
    private record Table(String name, List<String> columns, List<String> key) {

        static Table read(Connection connection, String name) throws SQLException {
            DatabaseMetaData metaData = connection.getMetaData();
            String schema = connection.getSchema();
            List<String> columns = new ArrayList<>();
            try (ResultSet rs = metaData.getColumns(null, schema, name, null)) {
                java.util.TreeMap<Integer, String> ordered = new java.util.TreeMap<>();
                while (rs.next()) {
                    ordered.put(rs.getInt("ORDINAL_POSITION"), rs.getString("COLUMN_NAME"));
                }
                columns.addAll(ordered.values());
            }
            java.util.TreeMap<Integer, String> key = new java.util.TreeMap<>();
            try (ResultSet rs = metaData.getPrimaryKeys(null, schema, name)) {
                while (rs.next()) {
                    key.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
                }
            }
            if (columns.isEmpty() || key.isEmpty()) {
                throw new SQLException("The store's log names table " + name + ", which has no columns or no primary "
                        + "key here");
            }
            return new Table(name, columns, new ArrayList<>(key.values()));
        }

        String upsert() {
            return "MERGE INTO " + quoted(this.name) + " (" + String.join(", ", quotedAll(this.columns)) + ") KEY ("
                    + String.join(", ", quotedAll(this.key)) + ") VALUES ("
                    + String.join(", ", java.util.Collections.nCopies(this.columns.size(), "?")) + ")";
        }

        String delete() {
            List<String> conditions = new ArrayList<>();
            for (String column : this.key) {
                conditions.add(quoted(column) + " = ?");
            }
            return "DELETE FROM " + quoted(this.name) + " WHERE " + String.join(" AND ", conditions);
        }

        int[] keyPositions() {
            int[] positions = new int[this.key.size()];
            for (int i = 0; i < positions.length; i++) {
                positions[i] = this.columns.indexOf(this.key.get(i));
            }
            return positions;
        }

        private static String quoted(String identifier) {
            return "\"" + identifier.replace("\"", "\"\"") + "\"";
        }

        private static List<String> quotedAll(List<String> identifiers) {
            List<String> quoted = new ArrayList<>(identifiers.size());
            for (String identifier : identifiers) {
                quoted.add(quoted(identifier));
            }
            return quoted;
        }
    }

    private static @Nullable Object readValue(DataInputStream in) throws IOException {
        byte type = in.readByte();
        return switch (type) {
            case NULL -> null;
            case STRING -> {
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                yield new String(bytes, StandardCharsets.UTF_8);
            }
            case LONG -> in.readLong();
            case INT -> in.readInt();
            default -> throw new IOException("unknown value type " + type + " in the store's log");
        };
    }

    /** What one open transaction changed so far: its row images, encoded as they come. */
    static final class Capture {

        private final Buffer buffer = new Buffer();

        private final DataOutputStream out = new DataOutputStream(this.buffer);

        Capture() {
            this.buffer.write(TRANSACTION);
        }

        void image(byte kind, String table, Object[] row) throws IOException, SQLException {
            int mark = size();
            try {
                this.out.writeByte(kind);
                this.out.writeUTF(table);
                this.out.writeShort(row.length);
                for (Object value : row) {
                    writeValue(value);
                }
            }
            catch (IOException | SQLException | RuntimeException ex) {
                truncate(mark);
                throw ex;
            }
        }

        private void writeValue(@Nullable Object value) throws IOException, SQLException {
            if (value == null) {
                this.out.writeByte(NULL);
            }
            else if (value instanceof String text) {
                writeString(text);
            }
            else if (value instanceof Long number) {
                this.out.writeByte(LONG);
                this.out.writeLong(number);
            }
            else if (value instanceof Integer number) {
                this.out.writeByte(INT);
                this.out.writeInt(number);
            }
            else if (value instanceof Clob clob) {
                writeString(read(clob));
            }
            else {
                throw new SQLException("The store's log cannot hold a value of type " + value.getClass().getName());
            }
        }

        private void writeString(String text) throws IOException {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            this.out.writeByte(STRING);
            this.out.writeInt(bytes.length);
            this.out.write(bytes);
        }

        private static String read(Clob clob) throws SQLException, IOException {
            StringBuilder text = new StringBuilder();
            char[] chunk = new char[8192];
            try (Reader reader = clob.getCharacterStream()) {
                int read;
                while ((read = reader.read(chunk)) > 0) {
                    text.append(chunk, 0, read);
                }
            }
            return text.toString();
        }

        int size() {
            return this.buffer.size();
        }

        /** Everything after the record's kind, cut at {@code mark} (never before the kind). */
        void truncate(int mark) {
            this.buffer.truncate(Math.max(1, mark));
        }

        byte[] bytes() {
            return this.buffer.array();
        }

        /** Whether anything but the record's kind is there. */
        boolean isEmpty() {
            return size() <= 1;
        }
    }

    /** A byte array stream whose array is read as it is and which can be cut back. */
    private static final class Buffer extends ByteArrayOutputStream {

        Buffer() {
            super(512);
        }

        byte[] array() {
            return this.buf;
        }

        void truncate(int size) {
            if (size < this.count) {
                this.count = size;
            }
        }
    }

    /** One segment file. */
    private static final class Segment {

        final FileChannel channel;

        final long number;

        /** The file's size. */
        final int capacity;

        /** Where the next record goes. Guarded by the log's lock. */
        long position;

        private Segment(FileChannel channel, long number, int capacity) {
            this.channel = channel;
            this.number = number;
            this.capacity = capacity;
        }

        /**
         * Creates the file, zeroed to its full size and forced, with its header; {@code firstSequence} below 0 leaves
         * the first sequence to {@link #begin} (a segment prepared ahead).
         */
        static Segment create(Path file, long number, long firstSequence, int capacity) throws IOException {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            try {
                long position = 0;
                while (position < capacity) {
                    ByteBuffer zeros = ZEROS.duplicate();
                    zeros.limit((int) Math.min(zeros.capacity(), capacity - position));
                    position += channel.write(zeros, position);
                }
                channel.force(true);
                Segment segment = new Segment(channel, number, capacity);
                if (firstSequence > 0) {
                    segment.begin(firstSequence);
                }
                return segment;
            }
            catch (IOException | RuntimeException ex) {
                channel.close();
                Files.deleteIfExists(file);
                throw ex;
            }
        }

        /** Writes the header, with the sequence number of the segment's first record. */
        void begin(long firstSequence) throws IOException {
            ByteBuffer header = ByteBuffer.allocate(SEGMENT_HEADER).putLong(MAGIC).putLong(this.number)
                .putLong(firstSequence)
                .flip();
            long position = 0;
            while (header.hasRemaining()) {
                position += this.channel.write(header, position);
            }
            this.position = SEGMENT_HEADER;
        }
    }

    @Override
    public String toString() {
        return this.directory.resolve(this.prefix + "*").toString();
    }
}
