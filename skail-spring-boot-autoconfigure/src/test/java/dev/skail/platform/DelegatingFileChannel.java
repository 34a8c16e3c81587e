package dev.skail.platform;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

import org.jspecify.annotations.Nullable;

/**
 * A file channel that does what another does: the tests' channels that count, hold or lose forces extend it and
 * override those.
 */
public abstract class DelegatingFileChannel extends FileChannel {

    protected final FileChannel channel;

    protected DelegatingFileChannel(FileChannel channel) {
        this.channel = channel;
    }

    @Override
    public int read(ByteBuffer destination) throws IOException {
        return this.channel.read(destination);
    }

    @Override
    public long read(ByteBuffer[] destinations, int offset, int length) throws IOException {
        return this.channel.read(destinations, offset, length);
    }

    @Override
    public int read(ByteBuffer destination, long position) throws IOException {
        return this.channel.read(destination, position);
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        return this.channel.write(source);
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        return this.channel.write(sources, offset, length);
    }

    @Override
    public int write(ByteBuffer source, long position) throws IOException {
        return this.channel.write(source, position);
    }

    @Override
    public long position() throws IOException {
        return this.channel.position();
    }

    @Override
    public FileChannel position(long position) throws IOException {
        this.channel.position(position);
        return this;
    }

    @Override
    public long size() throws IOException {
        return this.channel.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        this.channel.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        this.channel.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return this.channel.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel source, long position, long count) throws IOException {
        return this.channel.transferFrom(source, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return this.channel.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return this.channel.lock(position, size, shared);
    }

    @Override
    public @Nullable FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return this.channel.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        this.channel.close();
    }
}
