package dev.skail.platform.jdbc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.h2.store.fs.FileBaseDefault;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;
import org.jspecify.annotations.Nullable;

/**
 * H2's file system for the embedded store's database file ({@code jdbc:h2:skail:<path>}): the H2 file itself,
 * written and read as H2 does, but kept ahead of H2's writes on the disk, so that a durable commit costs one
 * {@code fdatasync} of the data H2 wrote and nothing else.
 * <p>
 * Why: H2 writes each commit as a new chunk at the end of its file. Forcing a file that grew (or whose modification
 * time changed, which {@code fsync} also makes durable) makes the file system commit its own journal as well: on
 * ext4 here that is ~0.3 ms a force, against ~0.1 ms to force data written over blocks the file already has. So the
 * {@code .mv.db} file is extended by {@link #EXTENT} of zeros at a time, ahead of H2's writes (on a short-lived
 * thread, which forces the zeros, so that neither H2's writes nor the syncs that wait for them pay for it), and
 * {@link FileChannel#force(boolean)} forces the data alone ({@code fdatasync}: every byte written, and whatever the
 * file system needs to read it back, such as a size that changed, but not the modification time).
 * <p>
 * H2 sees the file as it would be without the extension: {@link FileChannel#size()} is the end of what H2 wrote (or
 * truncated to), reads stop there, and a clean close truncates the zeros away (before the file's lock is released).
 * After a crash the file may end with zeros: when it is opened again and its lock taken, the whole zero blocks at its
 * end are taken off the size H2 sees (a chunk of H2's always ends with its non-zero footer, so no chunk ends in a zero
 * block), and H2 finds its last chunk as after any crash. Only the channel that holds the file's exclusive lock
 * extends or trims it: a process that opens the file and finds it locked (another process runs the store) leaves it
 * exactly as it was.
 * <p>
 * Other files (H2's lock and trace files) and files opened read-only are H2's own, untouched.
 * <p>
 * Public for H2 alone, which creates an instance per path by reflection: not an API of skail.
 */
public final class H2PreallocatedFilePath extends FilePathWrapper {

    /** The scheme in the database URL: {@code jdbc:h2:skail:/path/to/skail}. */
    static final String SCHEME = "skail";

    /** How far the file is extended ahead of H2's writes at a time. */
    static final int EXTENT = 1 << 20;

    /** When less than this is left ahead of H2's writes, the next extent is written. */
    private static final int AHEAD = EXTENT / 2;

    /** How far back from its end a file opened after a crash is looked at for zeros. */
    private static final long TRAILING_AT_MOST = 16L * EXTENT;

    private static final int BLOCK = 4096;

    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

    private static final H2PreallocatedFilePath INSTANCE = new H2PreallocatedFilePath();

    /** The files this process owns now (their lock held), by the name H2 opened them with. */
    private static final ConcurrentMap<String, PreallocatedFile> OWNED = new ConcurrentHashMap<>();


    /** For H2, which creates one per path. */
    public H2PreallocatedFilePath() {
    }

    /**
     * How many forces the file H2 opened as {@code fileName} (a name of this scheme) made before H2 wrote over space
     * it had written before, while this process owns it; {@code 0} for any other file.
     */
    public static long barrierForces(String fileName) {
        PreallocatedFile file = OWNED.get(fileName);
        return (file != null) ? file.barrierForces() : 0;
    }

    /** The directory a file on the local disk is in, or {@code null} (another of H2's file systems beneath). */
    static @Nullable Path directoryOf(FilePath file) {
        try {
            FilePath parent = file.unwrap().getParent();
            return (parent != null) ? Path.of(parent.toString()).toAbsolutePath() : null;
        }
        catch (RuntimeException ex) {
            return null;
        }
    }

    /**
     * The name by which H2's storage engine opens {@code file} through this file system (registered first): a store
     * file of skail's own ({@code dev.skail.platform.local}) is extended ahead of its writes and forced as H2's SQL
     * database file is. The name must end with {@code .mv.db}.
     */
    public static String fileName(Path file) {
        if (!file.getFileName().toString().endsWith(org.h2.engine.Constants.SUFFIX_MV_FILE)) {
            throw new IllegalArgumentException("a store file's name ends with "
                    + org.h2.engine.Constants.SUFFIX_MV_FILE + ": " + file);
        }
        register();
        return SCHEME + ":" + file.toAbsolutePath();
    }

    /** Makes the scheme known to H2 (once per class loader; H2 keeps a map of the file systems by scheme). */
    static void register() {
        FilePath.register(INSTANCE);
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public FileChannel open(String mode) throws IOException {
        FileChannel base = getBase().open(mode);
        if ("r".equals(mode) || !name.endsWith(".mv.db")) {
            return base;
        }
        return new PreallocatedFile(base, name, directoryOf(getBase()));
    }

    /**
     * The database file, extended ahead of H2's writes once this channel holds the file's lock, and only then: H2
     * opens the file and then takes its lock, and a process that does not get it (the file is another's) closes the
     * channel again; such a channel must leave the file exactly as it found it. H2 writes under its own store lock.
     */
    static final class PreallocatedFile extends FileBaseDefault {

        private final FileChannel base;

        private final String name;

        private final Object lock = new Object();

        /** Whether this channel holds the file's exclusive lock: only then is the file extended or trimmed. */
        private volatile boolean owner;

        /** The end of what H2 wrote: the size H2 sees, once {@link #owner}. */
        private volatile long size;

        /** The file's size on the disk: zeros past {@link #size}. Guarded by {@link #lock}. */
        private long allocated;

        /** Whether the next extent is being written ahead of H2. Guarded by {@link #lock}. */
        private boolean filling;

        /** Where the file is: forced once when the file is new, so that its name survives a power loss too. */
        private final @Nullable Path directory;

        /**
         * H2's writes so far, numbered from 1: a force covers every write numbered up to the count when it began.
         * Guarded by {@link #lock}.
         * <p>
         * H2 writes a new chunk over the space of chunks that hold nothing live any more, and a chunk dies when a
         * later one holds the last of its pages again: once it is older than the database's retention time, H2 may
         * reuse its space a few commits after the chunk that made it dead, before that one is forced. A power loss
         * then would leave the last durable version of the file pointing into space written over since. So a write
         * over space H2 wrote before (not at the end) first has every earlier write forced: the store's group sync
         * forces every commit within a sync's time anyway, so this costs a force only when such a write comes while
         * another commit waits for its sync (or right after a chunk, for the header H2 writes at the start of the
         * file when the chunk went into a hole: the header must never be on the device before its chunk).
         */
        private long writes;

        /** Every write numbered up to this one is on the device. Guarded by {@link #lock}. */
        private long forcedThrough;

        /** Forces running now (outside the lock). Guarded by {@link #lock}. */
        private int forcesRunning;

        /**
         * The writes the forces running now cover, the most of them: up to this one; meaningless when none runs.
         * Guarded by {@link #lock}.
         */
        private long forcingThrough;

        /** Forces made before a write over space H2 wrote before. Guarded by {@link #lock}. */
        private long barrierForces;

        /**
         * Writes over space H2 wrote before that waited for a force already running (which covered every earlier
         * write) instead of making one. Guarded by {@link #lock}.
         */
        private long barrierWaits;

        PreallocatedFile(FileChannel base, String name, @Nullable Path directory) {
            this.base = base;
            this.name = name;
            this.directory = directory;
        }

        /** The end of the last block holding anything but zeros, looking back at most {@link #TRAILING_AT_MOST}. */
        static long endOfData(FileChannel channel, long length) throws IOException {
            long end = length - (length % BLOCK);
            if (end < length && !zeros(channel, end, (int) (length - end))) {
                return length;
            }
            long lowest = Math.max(0, end - TRAILING_AT_MOST);
            while (end > lowest && zeros(channel, end - BLOCK, BLOCK)) {
                end -= BLOCK;
            }
            return end;
        }

        private static boolean zeros(FileChannel channel, long position, int length) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate(length);
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, position + buffer.position()) < 0) {
                    return false;
                }
            }
            for (byte b : buffer.array()) {
                if (b != 0) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public long size() throws IOException {
            return this.owner ? this.size : this.base.size();
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            if (!this.owner) {
                return this.base.read(dst, position);
            }
            long size = this.size;
            if (position >= size) {
                return -1;
            }
            long available = size - position;
            if (dst.remaining() <= available) {
                return this.base.read(dst, position);
            }
            ByteBuffer slice = dst.slice();
            slice.limit((int) available);
            int read = this.base.read(slice, position);
            if (read > 0) {
                dst.position(dst.position() + read);
            }
            return read;
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            if (!this.owner) {
                return this.base.write(src, position);
            }
            boolean interrupted = false;
            try {
                synchronized (this.lock) {
                    long end = position + src.remaining();
                    Barrier barrier = new Barrier();
                    // a wait lets go of the lock: everything is looked at again after one
                    while (true) {
                        if (!this.owner) {
                            return this.base.write(src, position);
                        }
                        if (end > this.allocated) {
                            if (this.filling) {
                                // the next extent is being written: H2's write goes there once it is
                                interrupted |= waitOnLock();
                            }
                            else {
                                extend(end);
                            }
                        }
                        else if (position < this.size && this.forcedThrough < this.writes) {
                            // over space H2 wrote before: every earlier write must be on the device first
                            interrupted |= barrier.step();
                        }
                        else {
                            break;
                        }
                    }
                    barrier.done();
                    // an interrupt during a wait is kept for after the write: set now, it would close the file
                    int written = this.base.write(src, position);
                    this.writes++;
                    if (position + written > this.size) {
                        this.size = position + written;
                    }
                    if (!this.filling && this.allocated - this.size < AHEAD) {
                        fillAhead();
                    }
                    return written;
                }
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Waits on {@link #lock} (held) once: for the extent being written ahead, or a force running; an interrupt does
         * not end the wait for good (the caller looks again).
         * @return whether the thread was interrupted meanwhile (its flag cleared, for the caller to set again once its
         * I/O is done: H2's write must go on, and an interrupted thread's I/O would close the file)
         */
        private boolean waitOnLock() {
            try {
                this.lock.wait();
                return false;
            }
            catch (InterruptedException ex) {
                return true;
            }
        }

        /**
         * The steps to every earlier write on the device, for one write or truncation, under {@link #lock}: a wait
         * for a force running now when that one covers every write (a sync's, which H2 runs outside its store lock),
         * a force of its own otherwise (also once the force waited for failed).
         */
        private final class Barrier {

            private boolean waited;

            private boolean forced;

            /** One step; the caller looks again at whether every earlier write is forced. */
            boolean step() throws IOException {
                PreallocatedFile file = PreallocatedFile.this;
                if (file.forcesRunning > 0 && file.forcingThrough >= file.writes) {
                    this.waited = true;
                    return file.waitOnLock();
                }
                long through = file.writes;
                file.base.force(false);
                file.forcedThrough = Math.max(file.forcedThrough, through);
                file.barrierForces++;
                this.forced = true;
                return false;
            }

            /** Counts a barrier served by another's force alone. */
            void done() {
                if (this.waited && !this.forced) {
                    PreallocatedFile.this.barrierWaits++;
                }
            }
        }

        /**
         * Zeros from the end of the file to the extent boundary at or past {@code end}, written by H2's writer itself:
         * only when the extent written ahead ({@link #fillAhead()}) did not keep up, or H2 writes a large chunk.
         */
        private void extend(long end) throws IOException {
            long target = ((end + EXTENT - 1) / EXTENT) * EXTENT;
            writeZeros(this.allocated, target);
            this.allocated = target;
        }

        /**
         * Writes the next extent on a thread of its own, and forces it, while H2 writes before it: H2's writes (and
         * the syncs that wait for them) do not pay for the extension. The thread ends with the extent.
         */
        private void fillAhead() {
            long from = this.allocated;
            long to = from + EXTENT;
            this.filling = true;
            Thread filler = new Thread(() -> {
                boolean filled = false;
                try {
                    writeZeros(from, to);
                    this.base.force(false);
                    filled = true;
                }
                catch (IOException ex) {
                    // a full disk, a closed file: H2's next write past the end extends the file itself, and fails
                    // as it would have
                }
                finally {
                    synchronized (this.lock) {
                        if (filled && this.allocated == from) {
                            this.allocated = to;
                        }
                        this.filling = false;
                        this.lock.notifyAll();
                    }
                }
            }, "skail:h2-extend");
            filler.setDaemon(true);
            try {
                filler.start();
            }
            catch (RuntimeException | OutOfMemoryError ex) {
                this.filling = false;
            }
        }

        private void writeZeros(long from, long to) throws IOException {
            long position = from;
            while (position < to) {
                ByteBuffer zeros = ZEROS.duplicate();
                zeros.limit((int) Math.min(zeros.capacity(), to - position));
                position += this.base.write(zeros, position);
            }
        }

        @Override
        protected void implTruncate(long newSize) throws IOException {
            if (!this.owner) {
                if (newSize < this.base.size()) {
                    this.base.truncate(newSize);
                }
                return;
            }
            boolean interrupted = false;
            try {
                synchronized (this.lock) {
                    Barrier barrier = new Barrier();
                    while (true) {
                        if (this.filling) {
                            interrupted |= waitOnLock();
                        }
                        else if (!this.owner) {
                            if (newSize < this.base.size()) {
                                this.base.truncate(newSize);
                            }
                            return;
                        }
                        else if (newSize >= this.size) {
                            return;
                        }
                        else if (this.forcedThrough < this.writes) {
                            // the space cut off held chunks that a chunk not forced yet may have made dead
                            interrupted |= barrier.step();
                        }
                        else {
                            break;
                        }
                    }
                    barrier.done();
                    this.base.truncate(newSize);
                    this.size = newSize;
                    this.allocated = newSize;
                }
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Forces the data H2 wrote, and the file's size when it changed, to the device ({@code fdatasync}): what
         * reading the file back after a power loss needs. The modification time is left to the file system.
         */
        @Override
        public void force(boolean metaData) throws IOException {
            long through;
            synchronized (this.lock) {
                // H2's writes happen under the lock: every write counted now has ended, and this force covers it
                through = this.writes;
                this.forcingThrough = (this.forcesRunning == 0) ? through : Math.max(this.forcingThrough, through);
                this.forcesRunning++;
            }
            boolean forced = false;
            try {
                this.base.force(false);
                forced = true;
            }
            finally {
                synchronized (this.lock) {
                    if (forced) {
                        this.forcedThrough = Math.max(this.forcedThrough, through);
                    }
                    this.forcesRunning--;
                    this.lock.notifyAll();
                }
            }
        }

        /** How many forces a write over space H2 wrote before made first. */
        long barrierForces() {
            synchronized (this.lock) {
                return this.barrierForces;
            }
        }

        /** How many writes over space H2 wrote before waited for a force already running instead. */
        long barrierWaits() {
            synchronized (this.lock) {
                return this.barrierWaits;
            }
        }

        /**
         * Takes the file's lock; with the exclusive lock this channel owns the file: the size H2 sees is worked out
         * now (H2 asks for it right after), with the zeros a crash left at the end taken off.
         */
        @Override
        public @Nullable FileLock tryLock(long position, long size, boolean shared) throws IOException {
            FileLock taken = this.base.tryLock(position, size, shared);
            if (taken == null || shared) {
                return taken;
            }
            try {
                synchronized (this.lock) {
                    this.allocated = this.base.size();
                    this.size = endOfData(this.base, this.allocated);
                    this.owner = true;
                }
                OWNED.put(this.name, this);
                if (this.allocated == 0) {
                    forceDirectory();
                }
            }
            catch (IOException | RuntimeException ex) {
                taken.release();
                throw ex;
            }
            return new OwnedLock(this, taken);
        }

        /**
         * A new file's name is in its directory, which {@code fdatasync} of the file does not force: the directory is
         * forced once, before anything H2 writes is acknowledged (where the system can force a directory; ext4 would
         * commit it with the file's first forced extension anyway).
         */
        private void forceDirectory() {
            if (this.directory == null) {
                return;
            }
            try (FileChannel directory = FileChannel.open(this.directory, StandardOpenOption.READ)) {
                directory.force(true);
            }
            catch (IOException | RuntimeException ex) {
                // not every system opens a directory as a channel; the file's own forces then carry its name
            }
        }

        /**
         * Leaves the file as H2 wrote it (the zeros past its end cut off) while this channel still holds the lock:
         * H2 releases the lock before it closes the file, and another process may take the file as soon as it is
         * released.
         */
        private void disown() throws IOException {
            boolean interrupted = false;
            try {
                synchronized (this.lock) {
                    while (this.filling) {
                        interrupted |= waitOnLock();
                    }
                    if (!this.owner) {
                        return;
                    }
                    this.owner = false;
                    OWNED.remove(this.name, this);
                    if (this.base.isOpen() && this.base.size() > this.size) {
                        this.base.truncate(this.size);
                    }
                    this.allocated = this.size;
                }
            }
            finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /** Closes the file; one still owned (its lock not released first) is trimmed before its lock goes with it. */
        @Override
        protected void implCloseChannel() throws IOException {
            try {
                disown();
            }
            finally {
                this.base.close();
            }
        }

        @Override
        public String toString() {
            return this.name;
        }

    }

    /** The file's exclusive lock, as H2 holds it: its release first gives the file back as H2 wrote it. */
    private static final class OwnedLock extends FileLock {

        private final PreallocatedFile file;

        private final FileLock base;

        OwnedLock(PreallocatedFile file, FileLock base) {
            super(file, base.position(), base.size(), base.isShared());
            this.file = file;
            this.base = base;
        }

        @Override
        public boolean isValid() {
            return this.base.isValid();
        }

        @Override
        public void release() throws IOException {
            if (!this.base.channel().isOpen()) {
                // an interrupt closed the file under H2: its lock went with it, and so does this channel
                this.file.close();
                return;
            }
            try {
                this.file.disown();
            }
            catch (IOException | RuntimeException ex) {
                // the zeros stay at the end, as after a crash (taken off when the file is opened again); H2 must go
                // on to close the file, or its descriptor would outlive the database and, closed by a later
                // collection, drop the locks this process holds on the file
            }
            finally {
                this.base.release();
            }
        }

    }

}
