package dev.skail.platform.jdbc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;

import org.h2.store.fs.FileBaseDefault;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

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
 * truncated to), reads stop there, and a clean close truncates the zeros away. After a crash the file may end with
 * up to two extents of zeros: when it is opened again, the whole zero blocks at its end are taken off the size H2 sees
 * (a chunk of H2's always ends with its non-zero footer, so no chunk ends in a zero block), and H2 finds its last
 * chunk as after any crash.
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

    /** For H2, which creates one per path. */
    public H2PreallocatedFilePath() {
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
        try {
            return new PreallocatedFile(base, name);
        }
        catch (IOException | RuntimeException ex) {
            base.close();
            throw ex;
        }
    }

    /** The database file, extended ahead of H2's writes; H2 writes under its own store lock. */
    static final class PreallocatedFile extends FileBaseDefault {

        private final FileChannel base;

        private final String name;

        private final Object lock = new Object();

        /** The end of what H2 wrote: the size H2 sees. */
        private volatile long size;

        /** The file's size on the disk: zeros past {@link #size}. Guarded by {@link #lock}. */
        private long allocated;

        /** Whether the next extent is being written ahead of H2. Guarded by {@link #lock}. */
        private boolean filling;

        PreallocatedFile(FileChannel base, String name) throws IOException {
            this.base = base;
            this.name = name;
            this.allocated = base.size();
            this.size = endOfData(base, this.allocated);
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
        public long size() {
            return this.size;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
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
            synchronized (this.lock) {
                long end = position + src.remaining();
                while (end > this.allocated) {
                    if (this.filling) {
                        // the next extent is being written: H2's write goes there once it is
                        awaitFill();
                    }
                    else {
                        extend(end);
                    }
                }
                int written = this.base.write(src, position);
                if (position + written > this.size) {
                    this.size = position + written;
                }
                if (!this.filling && this.allocated - this.size < AHEAD) {
                    fillAhead();
                }
                return written;
            }
        }

        /**
         * Zeros from the end of the file to the extent past {@code end}, written by H2's writer itself: only when
         * the extent written ahead ({@link #fillAhead()}) did not keep up.
         */
        private void extend(long end) throws IOException {
            long target = ((end / EXTENT) + 1) * EXTENT;
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

        /** Waits for the extent being written ahead; an interrupt does not end the wait (H2's write must go on). */
        private void awaitFill() {
            boolean interrupted = false;
            while (this.filling) {
                try {
                    this.lock.wait();
                }
                catch (InterruptedException ex) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
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
            synchronized (this.lock) {
                awaitFill();
                if (newSize < this.size) {
                    this.base.truncate(newSize);
                    this.size = newSize;
                    this.allocated = newSize;
                }
            }
        }

        /**
         * Forces the data H2 wrote, and the file's size when it changed, to the device ({@code fdatasync}): what
         * reading the file back after a power loss needs. The modification time is left to the file system.
         */
        @Override
        public void force(boolean metaData) throws IOException {
            this.base.force(false);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return this.base.tryLock(position, size, shared);
        }

        /** A clean close leaves the file as H2 wrote it: the zeros past its end are cut off. */
        @Override
        protected void implCloseChannel() throws IOException {
            try {
                synchronized (this.lock) {
                    awaitFill();
                    if (this.base.size() > this.size) {
                        this.base.truncate(this.size);
                        this.allocated = this.size;
                    }
                }
            }
            finally {
                this.base.close();
            }
        }

        @Override
        public String toString() {
            return SCHEME + ":" + this.name;
        }

    }

}
