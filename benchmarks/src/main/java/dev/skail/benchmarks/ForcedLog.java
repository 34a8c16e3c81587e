package dev.skail.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;

import dev.skail.platform.local.GroupForce;

/**
 * A preallocated file records are appended to; an append returns once a force that began after it has ended, and the
 * appends that wait together share one force (group commit). For the floors of a store of record of our own
 * ({@link MapStoreFloor}, {@link MapStoreKills}): no checksum, no wrap (an append past the end fails).
 */
final class ForcedLog {

    private final FileChannel channel;

    private final long size;

    private final Object lock = new Object();

    private long appended;

    private final GroupForce group;

    /** Forces made, and their time in all. */
    final AtomicLong forces = new AtomicLong();

    final AtomicLong forceNanos = new AtomicLong();

    /**
     * @param channel the log's file, {@code size} bytes already there ({@link #preallocate})
     * @param start where the next record goes (what is before it is durable)
     */
    ForcedLog(FileChannel channel, long size, long start) {
        this.channel = channel;
        this.size = size;
        this.appended = start;
        this.group = new GroupForce(start);
    }

    /**
     * Writes {@code size} bytes of zeros and forces them once: an append then changes no file size, and a force
     * ({@code fdatasync}) writes the data alone.
     */
    static void preallocate(FileChannel channel, long size) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
        for (long at = 0; at < size; at += zeros.capacity()) {
            zeros.clear();
            channel.write(zeros, at);
        }
        channel.force(true);
    }

    /** Where the next record goes: every record before it has been appended (not necessarily forced). */
    long position() {
        synchronized (this.lock) {
            return this.appended;
        }
    }

    /** Appends the record and returns once a force that began after the append has ended. */
    void append(byte[] record) {
        long mine;
        synchronized (this.lock) {
            long position = this.appended;
            if (position + record.length > this.size) {
                throw new IllegalStateException("the log is full (" + this.size + " bytes)");
            }
            this.appended += record.length;
            mine = this.appended;
            write(record, position);
        }
        this.group.await(mine, () -> {
            long covered = position();
            long begun = System.nanoTime();
            try {
                this.channel.force(false);
            }
            catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
            this.forceNanos.addAndGet(System.nanoTime() - begun);
            this.forces.incrementAndGet();
            return covered;
        });
    }

    private void write(byte[] record, long position) {
        try {
            this.channel.write(ByteBuffer.wrap(record), position);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
