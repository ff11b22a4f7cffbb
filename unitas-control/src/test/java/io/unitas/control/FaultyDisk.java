package io.unitas.control;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A file-system fault shim for the embedded store: real files, but writes draw on a budget of free bytes; when it
 * runs out a write is short (what fits is written, as the kernel does) and the next one fails with
 * {@code No space left on device}. Also records the largest single read, so tests can see that a replay streams.
 */
final class FaultyDisk implements ChannelOpener {

    private final AtomicLong free = new AtomicLong(Long.MAX_VALUE);
    private final AtomicInteger largestRead = new AtomicInteger();
    private final AtomicLong bytesRead = new AtomicLong();
    private volatile boolean truncateFails;
    private final AtomicInteger forces = new AtomicInteger();

    /** Leaves {@code bytes} free for writes from now on. */
    void fillLeaving(long bytes) {
        free.set(bytes);
    }

    /** Frees the disk. */
    void free() {
        free.set(Long.MAX_VALUE);
    }

    /** Makes truncation fail too (the store must then refuse writes rather than append after a fragment). */
    void truncateFails(boolean fails) {
        truncateFails = fails;
    }

    int largestRead() {
        return largestRead.get();
    }

    long bytesRead() {
        return bytesRead.get();
    }

    /** Forces (fsyncs) of the files opened through this shim, since it was made. */
    int forces() {
        return forces.get();
    }

    @Override
    public FileChannel open(Path file, OpenOption... options) throws IOException {
        return new Channel(FileChannel.open(file, options));
    }

    private final class Channel extends FileChannel {
        private final FileChannel real;

        Channel(FileChannel real) {
            this.real = real;
        }

        private int write(ByteBuffer src, long position, boolean positional) throws IOException {
            long left = free.get();
            if (left <= 0) {
                throw new IOException("No space left on device");
            }
            int n = (int) Math.min(src.remaining(), left);
            ByteBuffer part = src.duplicate();
            part.limit(part.position() + n);
            int written = positional ? real.write(part, position) : real.write(part);
            src.position(src.position() + written);
            free.addAndGet(-written);
            return written;
        }

        private int counted(ByteBuffer dst, int n) {
            largestRead.accumulateAndGet(dst.capacity(), Math::max);
            if (n > 0) {
                bytesRead.addAndGet(n);
            }
            return n;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return counted(dst, real.read(dst));
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            throw new UnsupportedOperationException("scattering reads");
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return write(src, -1, false);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            throw new UnsupportedOperationException("gathering writes");
        }

        @Override
        public long position() throws IOException {
            return real.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            real.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return real.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            if (truncateFails) {
                throw new IOException("Input/output error");
            }
            real.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            forces.incrementAndGet();
            real.force(metaData);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) {
            throw new UnsupportedOperationException("transferTo");
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) {
            throw new UnsupportedOperationException("transferFrom");
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return counted(dst, real.read(dst, position));
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return write(src, position, true);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) {
            throw new UnsupportedOperationException("map");
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return real.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return real.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            real.close();
        }
    }
}
