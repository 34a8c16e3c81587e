package dev.skail.platform.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

import org.jspecify.annotations.Nullable;

/**
 * The local store's log: every change of its maps, appended in the order the maps took them, forced before a write is
 * acknowledged (group commit: the writes that wait together share one force). The maps are stored in the background
 * now and then ({@code LocalStore}'s checkpoints), each time with the log position they hold everything before; after
 * a crash, the maps open at their last stored chunk and the log's records from that position on are applied again.
 * <p>
 * <b>Format.</b> A header ({@value #HEADER} bytes: magic, format, the position of the first record, a checksum), then
 * records. A record is the length of its changes (4 bytes), a CRC-32C of its position and changes (4), its position (8)
 * and its changes. Positions grow for ever: a record's is the position of the first record plus its offset after the
 * header. Reading stops at the first record whose length, position or checksum is not right: the tail a crash tore,
 * or the records of an earlier round of the file (their positions are lower), left where the log was started again.
 * <p>
 * <b>The file</b> is written over zeros it was extended with ahead of the records (forced once), so that a force is an
 * {@code fdatasync} of the records alone: no change of size to commit in the file system's journal. Once a stored
 * chunk of the maps holds everything the log holds, the log starts again at its header ({@link #restart}). Opening
 * an existing log writes nothing to it (it forces what it holds): what a crash left after the last
 * whole record is zeroed by the first append, or left behind for good by a restart, whichever comes first.
 * <p>
 * Not thread-safe for appends: the store appends under its write lock. {@link #awaitDurable} is called without it.
 */
final class RedoLog implements AutoCloseable {

    static final int HEADER = 512;

    private static final long MAGIC = 0x534b41494c4c4f47L; // "SKAILLOG"

    private static final int FORMAT = 1;

    private static final int RECORD_HEADER = 16;

    /**
     * How far the file is extended with zeros ahead of the records at a time: each extension forces the file's new
     * size too. Small, so that a store on a nearly full disk still opens, and a full one refuses writes (told as
     * such) while the records already written stay whole.
     */
    static final long EXTENT = 1L << 20;

    private final Path path;

    /** The file, open; opened again when an interrupt closed it (see {@link #io}). */
    private volatile FileChannel channel;

    private volatile boolean closed;

    /**
     * Why a force failed, until the log starts again ({@link #restart}): the kernel may have dropped the pages it could
     * not write and report it only once, so a later force that succeeds proves nothing about the records before it.
     * Every wait for durability fails meanwhile.
     */
    private volatile @Nullable IOException forceFailed;

    /** The position of the record at the header's end. Written under the store's write lock. */
    private volatile long base;

    /** The position after the last record appended. Written under the store's write lock. */
    private volatile long end;

    /**
     * The file's size: after the last record up to it, zeros, or records of earlier rounds (which state positions
     * below {@link #base}), or, while {@link #tailUnsure}, what a crash left.
     */
    private long allocated;

    /**
     * Whether the file may hold, after the last record, bytes other than zeros that a record of this round could be
     * read with: what a crash left after the end that recovery found (a torn record, whole ones behind it). Set at
     * open, cleared by a restart or by the first append, which zeroes and forces that tail first. Guarded by the
     * store's write lock.
     */
    private boolean tailUnsure;

    private final GroupForce group;

    /** How the log's file is opened, the first time and again after an interrupt closed it. */
    private final Opener opener;

    private RedoLog(Path path, Opener opener, FileChannel channel, long base, long end, long allocated) {
        this.path = path;
        this.opener = opener;
        this.channel = channel;
        this.base = base;
        this.end = end;
        this.allocated = allocated;
        this.group = new GroupForce(end);
    }

    /**
     * Opens the log in {@code path} (created when missing), applies its records from {@code from} on to
     * {@code replay}, in order, and returns it with its end after the last whole record.
     * @param from the position the maps hold everything before ({@code -1}: a new store, whose log must be new too)
     * @throws IllegalStateException if the log does not hold {@code from} (the maps are from another log)
     */
    static RedoLog open(Path path, long from, Consumer<ByteBuffer> replay) {
        return open(path, from, replay, FileChannel::open);
    }

    /** {@link #open(Path, long, Consumer)} with the log's file opened by {@code opener}. */
    static RedoLog open(Path path, long from, Consumer<ByteBuffer> replay, Opener opener) {
        try {
            FileChannel channel = opener.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            try {
                long size = channel.size();
                if (size >= HEADER && from < 0 && zeroMagic(channel)) {
                    // the first start was cut between the log's zeros and its header: nothing was ever logged
                    size = 0;
                }
                if (size < HEADER) {
                    if (from > 0) {
                        throw new IllegalStateException("the store's log " + path + " is missing or empty, but its "
                                + "maps were stored at log position " + from + ": the log belongs with the maps");
                    }
                    RedoLog log = new RedoLog(path, opener, channel, 0, 0, size);
                    log.restart(0);
                    forceDirectory(path);
                    return log;
                }
                long base = readHeader(channel, path);
                long start = Math.max(from, 0);
                if (start < base || start - base > size - HEADER) {
                    throw new IllegalStateException("the store's log " + path + " holds positions from " + base
                            + ", but its maps were stored at log position " + from
                            + ": the log belongs with the maps");
                }
                long end = replay(channel, base, start, size, replay);
                // everything up to the end is on the device before anything is acknowledged: the first wait for
                // durability takes it as forced, and a process that was killed may have left it in the kernel's cache
                // only (records applied again, or records before a chunk of the maps it stored but never forced). A
                // force with nothing left to write is a system call
                channel.force(false);
                RedoLog log = new RedoLog(path, opener, channel, base, end, size);
                // what lies after the last whole record (a torn one, records a crash left behind it, or only the
                // zeros the file was extended with) is not written at open: a restart puts all of it behind the next
                // round's records for good, and an append before any restart zeroes it first (see #append)
                log.tailUnsure = HEADER + (end - base) < size;
                return log;
            }
            catch (IOException | RuntimeException ex) {
                channel.close();
                throw ex;
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot open the store's log " + path + ": " + ex.getMessage(), ex);
        }
    }

    private static boolean zeroMagic(FileChannel channel) throws IOException {
        ByteBuffer magic = ByteBuffer.allocate(8);
        readFully(channel, magic, 0);
        return magic.getLong(0) == 0;
    }

    /** Makes a file's name in its directory durable (a new or renamed entry), where the platform allows it. */
    static void forceDirectory(Path path) {
        Path directory = path.toAbsolutePath().getParent();
        if (directory == null) {
            return;
        }
        try (FileChannel entries = FileChannel.open(directory, StandardOpenOption.READ)) {
            entries.force(true);
        }
        catch (IOException | RuntimeException ex) {
            // not every platform opens a directory as a channel
        }
    }

    private static long readHeader(FileChannel channel, Path path) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(24).order(ByteOrder.BIG_ENDIAN);
        readFully(channel, header, 0);
        header.flip();
        long magic = header.getLong();
        int format = header.getInt();
        long base = header.getLong();
        int crc = header.getInt();
        if (magic != MAGIC) {
            throw new IllegalStateException(path + " is not a skail store log");
        }
        if (format != FORMAT) {
            throw new IllegalStateException("the store's log " + path + " has format " + format + ", this runtime "
                    + "reads " + FORMAT + ": upgrade the runtime");
        }
        if (crc != crc(header.array(), 0, 20)) {
            throw new IllegalStateException("the store's log " + path + " has a damaged header");
        }
        return base;
    }

    /** Applies the records from {@code start} on; returns the position after the last whole one. */
    private static long replay(FileChannel channel, long base, long start, long size, Consumer<ByteBuffer> replay)
            throws IOException {
        long position = start;
        ByteBuffer head = ByteBuffer.allocate(RECORD_HEADER).order(ByteOrder.BIG_ENDIAN);
        while (true) {
            long offset = HEADER + (position - base);
            if (offset + RECORD_HEADER > size) {
                return position;
            }
            head.clear();
            readFully(channel, head, offset);
            head.flip();
            int length = head.getInt();
            int crc = head.getInt();
            long stated = head.getLong();
            if (length <= 0 || stated != position || offset + RECORD_HEADER + length > size) {
                return position;
            }
            ByteBuffer record = ByteBuffer.allocate(8 + length).order(ByteOrder.BIG_ENDIAN);
            record.putLong(position);
            readFully(channel, record, offset + RECORD_HEADER);
            if (crc(record.array(), 0, record.capacity()) != crc) {
                return position;
            }
            record.position(8);
            replay.accept(record);
            position += RECORD_HEADER + length;
        }
    }

    private static void readFully(FileChannel channel, ByteBuffer buffer, long offset) throws IOException {
        long at = offset;
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, at);
            if (read < 0) {
                throw new IOException("the store's log ended early");
            }
            at += read;
        }
    }

    private static int crc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    /** The position after the last record appended. */
    long end() {
        return this.end;
    }

    /**
     * The first record's position when the log starts again now: beyond the position any record in the file could
     * state (its offset is below the file's size), so that no record of an earlier round can ever pass for one of
     * the next, even one a crash left after the end that recovery found.
     */
    long nextBase() {
        return Math.max(this.end, this.base + (this.allocated - HEADER));
    }

    @FunctionalInterface
    private interface Io<T> {

        T run(FileChannel channel) throws IOException;
    }

    /**
     * Runs one I/O on the file without the calling thread's interrupt (kept for after): an interrupt closes a
     * {@link FileChannel} for every thread, so the file is opened again when one arrived meanwhile, and the I/O (a
     * positional write, a force) is run again.
     */
    private <T> T io(Io<T> action) throws IOException {
        boolean interrupted = Thread.interrupted();
        try {
            for (int attempt = 1;; attempt++) {
                FileChannel current = this.channel;
                try {
                    return action.run(current);
                }
                catch (java.nio.channels.ClosedChannelException ex) {
                    interrupted |= Thread.interrupted();
                    if (this.closed || attempt == 3) {
                        throw ex;
                    }
                    reopen(current);
                }
            }
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void reopen(FileChannel closedOne) throws IOException {
        if (this.closed) {
            throw new java.nio.channels.ClosedChannelException();
        }
        if (this.channel == closedOne && !closedOne.isOpen()) {
            this.channel = this.opener.open(this.path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
    }

    /**
     * How the log's file is opened: {@link FileChannel#open(Path, java.nio.file.OpenOption...)}, or in tests a channel
     * that keeps what a power loss would.
     */
    @FunctionalInterface
    interface Opener {

        FileChannel open(Path path, java.nio.file.OpenOption... options) throws IOException;

    }

    /** How many bytes the records since the log's start take. */
    long size() {
        return this.end - this.base;
    }

    /**
     * Appends a record of {@code changes} (written, not forced). Called under the store's write lock.
     * @return the position after it: it is durable once {@link #awaitDurable} of that position returns
     */
    long append(byte[] changes) {
        long position = this.end;
        long offset = HEADER + (position - this.base);
        ByteBuffer record = ByteBuffer.allocate(RECORD_HEADER + changes.length).order(ByteOrder.BIG_ENDIAN);
        byte[] checked = ByteBuffer.allocate(8 + changes.length).putLong(position).put(changes).array();
        record.putInt(changes.length).putInt(crc(checked, 0, checked.length)).putLong(position).put(changes).flip();
        try {
            if (this.tailUnsure) {
                zeroTail(offset);
            }
            if (offset + record.remaining() > this.allocated) {
                extend(offset + record.remaining());
            }
            io((file) -> {
                record.rewind();
                while (record.hasRemaining()) {
                    file.write(record, offset + record.position());
                }
                return null;
            });
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot write the store's log " + this.path + ": " + ex.getMessage(), ex);
        }
        this.end = position + record.capacity();
        return this.end;
    }

    /**
     * Zeroes the file from {@code offset} (the end's) to its size and forces it, before the first record appended
     * after the log opened, when no restart came first: a record appended and forced later must never have behind it
     * a record of this round that a crash left, which recovery would read as the next one.
     */
    private void zeroTail(long offset) throws IOException {
        zeros(offset, this.allocated);
        forced(false);
        this.tailUnsure = false;
    }

    /** Extends the file with zeros to at least {@code needed} and forces them, so that appends change no size. */
    private void extend(long needed) throws IOException {
        long target = Math.max(needed, this.allocated + EXTENT);
        zeros(this.allocated, target);
        forced(true);
        this.allocated = target;
    }

    /** Writes zeros from {@code from} to {@code to} (not forced). */
    private void zeros(long from, long to) throws IOException {
        io((file) -> {
            ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
            for (long at = from; at < to; at += zeros.capacity()) {
                zeros.clear();
                zeros.limit((int) Math.min(zeros.capacity(), to - at));
                while (zeros.hasRemaining()) {
                    file.write(zeros, at + zeros.position());
                }
            }
            return null;
        });
    }

    /**
     * Returns once every record before {@code position} is on the device (one force for all who wait with it).
     * @throws UncheckedIOException if a force failed, this one or one since the log last started
     */
    void awaitDurable(long position) {
        this.group.await(position, () -> {
            failIfForceFailed();
            long covered = this.end;
            try {
                forced(false);
            }
            catch (IOException ex) {
                throw new UncheckedIOException("cannot force the store's log " + this.path + ": " + ex.getMessage(),
                        ex);
            }
            return covered;
        });
        failIfForceFailed();
    }

    /**
     * Forces the file; a failure is kept (see {@link #forceFailed}): the kernel reports a page it could not write to
     * one force only, whichever asked.
     */
    private void forced(boolean metadata) throws IOException {
        try {
            io((file) -> {
                file.force(metadata);
                return null;
            });
        }
        catch (IOException ex) {
            if (!this.closed) {
                this.forceFailed = ex;
            }
            throw ex;
        }
    }

    /** Keeps a failure of the store that makes the log's records unsure (a force of the maps before a restart). */
    void failed(IOException ex) {
        this.forceFailed = ex;
    }

    private void failIfForceFailed() {
        IOException failed = this.forceFailed;
        if (failed != null) {
            throw new UncheckedIOException("a force of the store's log " + this.path + " failed (" + failed.getMessage()
                    + "): nothing is acknowledged until the store's maps are stored and forced", failed);
        }
    }

    /** Whether a force failed since the log last started: the maps must be stored and forced, and the log restarted. */
    boolean forceFailed() {
        return this.forceFailed != null;
    }

    /** How many forces the appends waited for. */
    long forces() {
        return this.group.forces();
    }

    /**
     * Starts the log again at its header, its first record's position {@code base} ({@link #nextBase()} or beyond):
     * called under the store's write lock, once the maps are stored and forced with everything before it. The header
     * is forced before it returns; the records of the rounds before stay in the file, read as the end of the log
     * (their positions are all below {@code base}).
     */
    void restart(long base) {
        if (base < nextBase()) {
            throw new IllegalArgumentException("the log restarts at " + nextBase() + " or beyond, not " + base);
        }
        try {
            // the zeros first: they are written from the file's end, the header's place in a new file
            if (this.allocated < HEADER + EXTENT) {
                extend(HEADER + EXTENT);
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER).order(ByteOrder.BIG_ENDIAN);
            header.putLong(MAGIC).putInt(FORMAT).putLong(base);
            header.putInt(crc(header.array(), 0, 20));
            io((file) -> {
                header.clear();
                while (header.hasRemaining()) {
                    file.write(header, header.position());
                }
                return null;
            });
            forced(false);
            this.base = base;
            this.end = base;
            // every record in the file now states a position below the base: none is read as one of this round
            this.tailUnsure = false;
            this.forceFailed = null;
        }
        catch (IOException ex) {
            // the maps were stored as of a position this log does not start at: nothing is acknowledged until a
            // restart succeeds (the next checkpoint stores the maps again)
            this.forceFailed = ex;
            throw new UncheckedIOException("cannot start the store's log " + this.path + " again: " + ex.getMessage(),
                    ex);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        this.closed = true;
        this.channel.close();
    }

    /** The log's file, next to the maps' file of {@code mapsFile}. */
    static Path next(Path mapsFile) {
        String name = mapsFile.getFileName().toString();
        String stem = name.endsWith(org.h2.engine.Constants.SUFFIX_MV_FILE)
                ? name.substring(0, name.length() - org.h2.engine.Constants.SUFFIX_MV_FILE.length()) : name;
        return mapsFile.resolveSibling(stem + ".log");
    }
}
