package io.unitas.cli;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Collects output rows in 1 MiB blocks and writes full blocks on a thread of its own, so that the system calls
 * and copies of writing overlap the parsing of the next rows. Nothing reaches the stream before the first block
 * fills or {@link #finish()} is called: a small output abandoned on an input error leaves the stream untouched.
 */
final class BlockWriter implements AutoCloseable {

    private static final int BLOCK = 1 << 20;
    private static final int BLOCKS = 3;
    private static final Block END = new Block(new byte[0], 0);

    private final OutputStream out;
    private final BlockingQueue<Block> full = new ArrayBlockingQueue<>(BLOCKS);
    private final BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(BLOCKS);
    private final Thread writer;
    private volatile IOException failure;
    private byte[] buf = new byte[BLOCK];
    private int size;
    private boolean ended;

    private record Block(byte[] bytes, int size) {}

    BlockWriter(OutputStream out) {
        this.out = out;
        for (int i = 1; i < BLOCKS; i++) {
            free.add(new byte[BLOCK]);
        }
        writer = new Thread(this::drain, "unitas-block-writer");
        writer.setDaemon(true);
        writer.start();
    }

    /** Appends {@code len} bytes of {@code b} from {@code off}. */
    void write(byte[] b, int off, int len) throws IOException {
        if (len > buf.length - size) {
            handOff();
            if (len > buf.length) {
                // Travels alone, in an array of its own that never joins the pool of blocks.
                send(new Block(java.util.Arrays.copyOfRange(b, off, off + len), len));
                return;
            }
        }
        System.arraycopy(b, off, buf, size, len);
        size += len;
    }

    /** Writes what is left, waits until everything is written and flushes the stream. */
    void finish() throws IOException {
        handOff();
        end();
        if (failure != null) {
            throw failure;
        }
        out.flush();
    }

    /** Stops the writing thread; what was not yet handed off is dropped. */
    @Override
    public void close() throws IOException {
        end();
    }

    private void handOff() throws IOException {
        send(new Block(buf, size));
        try {
            buf = free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing");
        }
        size = 0;
    }

    private void send(Block block) throws IOException {
        if (failure != null) {
            throw failure;
        }
        try {
            full.put(block);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing");
        }
    }

    private void end() throws IOException {
        if (ended) {
            return;
        }
        ended = true;
        try {
            full.put(END);
            writer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while writing");
        }
    }

    private void drain() {
        try {
            while (true) {
                Block block = full.take();
                if (block == END) {
                    return;
                }
                if (failure == null) {
                    try {
                        out.write(block.bytes, 0, block.size);
                    } catch (IOException e) {
                        failure = e;
                    }
                }
                if (block.bytes.length == BLOCK) {
                    free.put(block.bytes);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
