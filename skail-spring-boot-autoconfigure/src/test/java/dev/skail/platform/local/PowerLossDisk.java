package dev.skail.platform.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.skail.platform.DelegatingFileChannel;
import org.jspecify.annotations.Nullable;

/**
 * A disk that can lose power, for the files of one directory. The files are real, and what a program reads from them
 * is what it wrote; but what is on the device is kept apart, as an operating system's page cache would leave it: a
 * write is only in memory until a force of its file, and a force puts every sector written to that file before it on
 * the device. When the power goes ({@link #cutAtForce}), every later write and force fails, and the files are written
 * into another directory as a restart would find them: what was forced, and of the sectors written since, some and not
 * others (none, all, those in one prefix of the file, or each with even odds), in whole sectors of 512 bytes. A file
 * cut shorter and not forced since is found at either length.
 * <p>
 * Directories are not modelled: a file that exists is taken to stay. Both files of the embedded store reach the
 * disk: its log through {@link #open}, its maps through H2's file system {@link PowerLossFilePath}.
 */
final class PowerLossDisk {

    static final int SECTOR = 512;

    /** The disks attached, by the directory whose files they hold. */
    private static final ConcurrentMap<Path, PowerLossDisk> ATTACHED = new ConcurrentHashMap<>();

    private final Path directory;

    private final Random random;

    private final Object lock = new Object();

    /** The files opened through this disk, by path. Guarded by {@link #lock}. */
    private final Map<Path, Device> files = new LinkedHashMap<>();

    /** The forces made so far. Guarded by {@link #lock}. */
    private long forces;

    /**
     * The force at which the power goes: it fails, and what it would have forced is on the device as any write since
     * the last force is (some sectors, or none, or all).
     */
    private long cutAt = Long.MAX_VALUE;

    /** The file whose forces {@link #cutAt} counts, or {@code null}: every file's. */
    private @Nullable String cutFile;

    private @Nullable Path after;

    private volatile boolean off;

    /** What the cut left of each file, for the test's message. */
    private final List<String> cut = new ArrayList<>();

    private PowerLossDisk(Path directory, Random random) {
        this.directory = directory;
        this.random = random;
    }

    /** A disk for the files of {@code directory}, which H2 reaches through {@link PowerLossFilePath} from now on. */
    static PowerLossDisk attach(Path directory, Random random) {
        PowerLossFilePath.register();
        PowerLossDisk disk = new PowerLossDisk(directory.toAbsolutePath(), random);
        if (ATTACHED.putIfAbsent(disk.directory, disk) != null) {
            throw new IllegalStateException("a disk is attached to " + directory + " already");
        }
        return disk;
    }

    static @Nullable PowerLossDisk attached(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return (parent != null) ? ATTACHED.get(parent) : null;
    }

    /** Detaches the disk and closes what it kept of its files. */
    void detach() {
        ATTACHED.remove(this.directory, this);
        synchronized (this.lock) {
            for (Device device : this.files.values()) {
                device.close();
            }
            this.files.clear();
        }
    }

    /** Opens {@code path} through this disk: a {@link RedoLog.Opener}. */
    FileChannel open(Path path, OpenOption... options) throws IOException {
        return wrap(path, FileChannel.open(path, options));
    }

    /** {@code base}, a channel of {@code path}, whose writes and forces go through this disk from now on. */
    FileChannel wrap(Path path, FileChannel base) throws IOException {
        synchronized (this.lock) {
            if (this.off) {
                base.close();
                throw new IOException("the power is off");
            }
            Device device = this.files.get(path.toAbsolutePath());
            if (device == null) {
                device = new Device(path.toAbsolutePath());
                this.files.put(device.path, device);
            }
            return new Channel(base, device);
        }
    }

    /**
     * The power goes at the {@code force}-th force of the file named {@code file} (of any file: {@code null}), counting
     * from 1, and the files as a restart would find them are written into {@code after}.
     */
    void cutAtForce(@Nullable String file, long force, Path after) {
        synchronized (this.lock) {
            this.cutFile = file;
            this.cutAt = force;
            this.after = after;
        }
    }

    /** The power goes now (a test that failed stops its writers so), the files written into {@code after}. */
    void cutNow(Path after) throws IOException {
        synchronized (this.lock) {
            if (!this.off) {
                this.after = after;
                powerOff();
            }
        }
    }

    boolean isOff() {
        return this.off;
    }

    /** What the cut left of each file: how many sectors written since its last force it kept, of how many. */
    List<String> cut() {
        synchronized (this.lock) {
            return List.copyOf(this.cut);
        }
    }

    private void force(Device device) throws IOException {
        synchronized (this.lock) {
            if (this.off) {
                throw new IOException("the power is off");
            }
            this.forces++;
            device.forces++;
            long counted = (this.cutFile == null) ? this.forces
                    : device.path.getFileName().toString().equals(this.cutFile) ? device.forces : 0;
            if (counted >= this.cutAt) {
                powerOff();
                throw new IOException("the power went during this force");
            }
            device.force();
        }
    }

    private void powerOff() throws IOException {
        this.off = true;
        Path into = Files.createDirectories(java.util.Objects.requireNonNull(this.after));
        for (Device device : this.files.values()) {
            this.cut.add(device.lose(into.resolve(device.path.getFileName()), this.random));
        }
    }

    /** A file as the device holds it: the image of its last force, and the sectors written since. */
    private final class Device {

        private final Path path;

        /** The file's content as of its last force (a copy on the side). */
        private final FileChannel durable;

        private final Path image;

        /** To read what a sector written since holds now. */
        private final FileChannel current;

        private final BitSet written = new BitSet();

        private long durableLength;

        /** The forces of this file. Guarded by the disk's lock. */
        private long forces;

        Device(Path path) throws IOException {
            this.path = path;
            Path images = Files.createDirectories(PowerLossDisk.this.directory
                .resolveSibling(PowerLossDisk.this.directory.getFileName() + ".device"));
            this.image = Files.createTempFile(images, path.getFileName() + ".", ".forced");
            if (Files.exists(path)) {
                // what was there when the disk was attached is on it
                Files.copy(path, this.image, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            this.durable = FileChannel.open(this.image, StandardOpenOption.READ, StandardOpenOption.WRITE);
            this.durableLength = this.durable.size();
            this.current = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        }

        void wrote(long position, int length) {
            if (length > 0) {
                this.written.set(Math.toIntExact(position / SECTOR),
                        Math.toIntExact((position + length - 1) / SECTOR) + 1);
            }
        }

        void force() throws IOException {
            long length = this.current.size();
            copy(this.written, this.durable, length);
            this.durable.truncate(length);
            this.durableLength = length;
            this.written.clear();
        }

        /** Copies the sectors in {@code sectors} (up to {@code length}) from the file as it is now into {@code to}. */
        private void copy(BitSet sectors, FileChannel to, long length) throws IOException {
            ByteBuffer buffer = ByteBuffer.allocate(SECTOR);
            for (int sector = sectors.nextSetBit(0); sector >= 0; sector = sectors.nextSetBit(sector + 1)) {
                long at = (long) sector * SECTOR;
                if (at >= length) {
                    break;
                }
                buffer.clear();
                buffer.limit((int) Math.min(SECTOR, length - at));
                while (buffer.hasRemaining() && this.current.read(buffer, at + buffer.position()) >= 0) {
                    // read on
                }
                buffer.flip();
                while (buffer.hasRemaining()) {
                    to.write(buffer, at + buffer.position());
                }
            }
        }

        /** Writes the file as a restart after a power loss finds it into {@code into}; says what it kept. */
        String lose(Path into, Random random) throws IOException {
            Files.copy(this.image, into, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            long length = this.current.size();
            BitSet kept = new BitSet();
            int mode = random.nextInt(4);
            int count = this.written.cardinality();
            int prefix = (count > 0) ? random.nextInt(count + 1) : 0;
            int seen = 0;
            for (int sector = this.written.nextSetBit(0); sector >= 0; sector = this.written.nextSetBit(sector + 1)) {
                boolean keep = switch (mode) {
                    case 0 -> false;
                    case 1 -> true;
                    case 2 -> seen < prefix;
                    default -> random.nextBoolean();
                };
                seen++;
                if (keep && (long) sector * SECTOR < length) {
                    kept.set(sector);
                }
            }
            try (FileChannel lost = FileChannel.open(into, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                copy(kept, lost, length);
                long size;
                if (length < this.durableLength) {
                    // cut shorter since the last force: the shorter length reached the device or not
                    size = random.nextBoolean() ? length : this.durableLength;
                }
                else {
                    int last = kept.length() - 1;
                    size = Math.max(this.durableLength, (last < 0) ? 0 : Math.min(length, (long) (last + 1) * SECTOR));
                }
                lost.truncate(size);
                if (lost.size() < size) {
                    lost.write(ByteBuffer.allocate(1), size - 1);
                }
            }
            return this.path.getFileName() + ": " + kept.cardinality() + " of " + count
                    + " sectors written since its last force kept (" + new String[] { "none", "all", "a prefix",
                            "each at even odds" }[mode] + ")";
        }

        void close() {
            try {
                this.durable.close();
                this.current.close();
                Files.deleteIfExists(this.image);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
    }

    /** A channel of a real file whose writes, truncations and forces go through the disk. */
    private final class Channel extends DelegatingFileChannel {

        private final Device device;

        Channel(FileChannel base, Device device) {
            super(base);
            this.device = device;
        }

        @Override
        public int write(ByteBuffer source, long position) throws IOException {
            synchronized (PowerLossDisk.this.lock) {
                if (PowerLossDisk.this.off) {
                    throw new IOException("the power is off");
                }
                int written = this.channel.write(source, position);
                this.device.wrote(position, written);
                return written;
            }
        }

        @Override
        public int write(ByteBuffer source) throws IOException {
            synchronized (PowerLossDisk.this.lock) {
                long position = this.channel.position();
                int written = write(source, position);
                this.channel.position(position + written);
                return written;
            }
        }

        @Override
        public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
            long written = 0;
            for (int i = offset; i < offset + length; i++) {
                written += write(sources[i]);
            }
            return written;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            if (!this.channel.isOpen() || !isOpen()) {
                throw new java.nio.channels.ClosedChannelException();
            }
            PowerLossDisk.this.force(this.device);
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            synchronized (PowerLossDisk.this.lock) {
                if (PowerLossDisk.this.off) {
                    throw new IOException("the power is off");
                }
                // not kept apart: the device keeps the length of the last force, or this one (see Device.lose)
                this.channel.truncate(size);
                return this;
            }
        }

        @Override
        public long transferFrom(java.nio.channels.ReadableByteChannel source, long position, long count) {
            throw new UnsupportedOperationException("not through the power-loss disk");
        }

        @Override
        public java.nio.MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException("not through the power-loss disk");
        }
    }
}
