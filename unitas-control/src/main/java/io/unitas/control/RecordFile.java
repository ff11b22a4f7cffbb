package io.unitas.control;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One file of framed records, the embedded store's unit of durability. The file opens with the 8 bytes
 * {@code UNITASR1}; each record is {@code [length:4][crc32c of length and payload:4][payload][length:4]},
 * big-endian. The trailing length lets a reader walk back from the end (the audit log's newest entries) as
 * easily as forward.
 *
 * <p>An append is written after the last good record and forced before it returns. If any part fails (a full
 * disk's short write and {@code ENOSPC}, a failed fsync), the file is truncated back to the last good record, so
 * no later append ever lands behind a fragment; if even that fails, appends are refused until it succeeds.
 *
 * <p>On open the records are checked front to back in fixed-size chunks (never a whole file, never a whole record
 * in memory). A damaged last record is a crash's torn tail: it was never acknowledged, so it is cut off, logged
 * and reported to {@code tornTail}. A damaged record with data after it is corruption:
 * {@link StoreCorruptedException} names the file and offset.
 */
final class RecordFile implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RecordFile.class);

    static final byte[] MAGIC = "UNITASR1".getBytes(StandardCharsets.US_ASCII);
    static final int OVERHEAD = 12;
    private static final int CHUNK = 64 * 1024;

    private final Path path;
    private final FileChannel channel;
    private final int maxRecord;
    private long end;
    private long lastRecord = -1;
    private long records;
    private boolean undoPending;

    private RecordFile(Path path, FileChannel channel, int maxRecord) {
        this.path = path;
        this.channel = channel;
        this.maxRecord = maxRecord;
    }

    /**
     * Opens (creating if absent) a file to append to, after checking every record and cutting a torn tail off;
     * {@code tornTail} gets the number of bytes cut.
     */
    static RecordFile open(Path path, ChannelOpener opener, int maxRecord, LongConsumer tornTail) throws IOException {
        FileChannel channel = opener.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                                          StandardOpenOption.WRITE);
        RecordFile file = new RecordFile(path, channel, maxRecord);
        try {
            file.recover(tornTail);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return file;
    }

    /** Opens a sealed file (one no longer appended to) to read; records are checked as they are read. */
    static RecordFile openSealed(Path path, ChannelOpener opener, int maxRecord) throws IOException {
        FileChannel channel = opener.open(path, StandardOpenOption.READ);
        RecordFile file = new RecordFile(path, channel, maxRecord);
        file.end = channel.size();
        return file;
    }

    Path path() {
        return path;
    }

    /** The offset after the last good record: the file's size as far as anyone may read. */
    long end() {
        return end;
    }

    /** Records checked on open plus records appended since. */
    long records() {
        return records;
    }

    /** The offset of the last record, or -1 if there is none. */
    long lastRecord() {
        return lastRecord;
    }

    private void recover(LongConsumer tornTail) throws IOException {
        long size = channel.size();
        if (size < MAGIC.length) {
            byte[] head = read(0, (int) size);
            if (!Arrays.equals(head, Arrays.copyOf(MAGIC, (int) size))) {
                throw new StoreCorruptedException(path, 0, "not a unitas record file");
            }
            // new, or created by a crash before its first bytes were forced
            ByteBuffer magic = ByteBuffer.wrap(MAGIC);
            long pos = 0;
            while (magic.hasRemaining()) {
                pos += channel.write(magic, pos);
            }
            channel.force(true);
            end = MAGIC.length;
            return;
        }
        if (!Arrays.equals(read(0, MAGIC.length), MAGIC)) {
            throw new StoreCorruptedException(path, 0, "not a unitas record file (expected: it to start with "
                                                       + "UNITASR1)");
        }
        long pos = MAGIC.length;
        String torn = null;
        while (pos < size) {
            long remaining = size - pos;
            if (remaining < 8) {
                torn = "a record header cut short";
                break;
            }
            ByteBuffer header = ByteBuffer.wrap(read(pos, 8));
            int length = header.getInt();
            int crc = header.getInt();
            if (length <= 0 || length > maxRecord) {
                if (zeroes(pos, size)) {
                    torn = "zeroes where a record should start";
                    break;
                }
                throw new StoreCorruptedException(path, pos, "record length " + length + " (expected: 1.."
                                                             + maxRecord + ")");
            }
            if (remaining < OVERHEAD + (long) length) {
                torn = "a record of " + length + " bytes cut short at " + (remaining - 8);
                break;
            }
            int trailer = ByteBuffer.wrap(read(pos + 8 + length, 4)).getInt();
            if (checksum(pos, length) != crc || trailer != length) {
                if (pos + OVERHEAD + length == size || zeroes(pos + 8, size)) {
                    torn = "the last record fails its checksum";
                    break;
                }
                throw new StoreCorruptedException(path, pos, "record of " + length + " bytes fails its checksum, "
                                                             + (size - pos - OVERHEAD - length) + " bytes follow");
            }
            lastRecord = pos;
            records++;
            pos += OVERHEAD + length;
        }
        end = pos;
        if (torn != null) {
            log.warn("{}: cut off a torn tail of {} bytes at offset {} ({}); it was never acknowledged", path,
                     size - pos, pos, torn);
            channel.truncate(pos);
            channel.force(true);
            tornTail.accept(size - pos);
        }
    }

    /** The CRC32C of a record's length field and payload, read in chunks. */
    private int checksum(long pos, int length) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(4).putInt(0, length));
        ByteBuffer chunk = ByteBuffer.allocate(Math.min(CHUNK, length));
        long at = pos + 8;
        long stop = at + length;
        while (at < stop) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), stop - at));
            readFully(chunk, at);
            chunk.flip();
            at += chunk.remaining();
            crc.update(chunk);
        }
        return (int) crc.getValue();
    }

    private boolean zeroes(long from, long to) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
        for (long at = from; at < to; ) {
            chunk.clear().limit((int) Math.min(CHUNK, to - at));
            readFully(chunk, at);
            chunk.flip();
            at += chunk.remaining();
            while (chunk.hasRemaining()) {
                if (chunk.get() != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Appends one record, durably; on failure the file is as before (or refuses appends until it can be). */
    void append(byte[] payload) throws IOException {
        append(payload, true);
    }

    /**
     * Appends one record, forced to the disk when {@code durable}; otherwise it is durable after the next
     * {@link #force()}. For rewriting what is already durable elsewhere (a migration), where one force per record
     * would cost a disk flush each.
     */
    void append(byte[] payload, boolean durable) throws IOException {
        if (payload.length == 0 || payload.length > maxRecord) {
            throw new RecordTooLargeException(path, payload.length, maxRecord);
        }
        if (undoPending) {
            undo(new IOException(path + ": a failed write could not be undone; refusing writes until it can"));
        }
        ByteBuffer frame = ByteBuffer.allocate(OVERHEAD + payload.length);
        CRC32C crc = new CRC32C();
        crc.update(ByteBuffer.allocate(4).putInt(0, payload.length));
        crc.update(payload);
        frame.putInt(payload.length).putInt((int) crc.getValue()).put(payload).putInt(payload.length).flip();
        try {
            long pos = end;
            while (frame.hasRemaining()) {
                pos += channel.write(frame, pos);
            }
            if (durable) {
                channel.force(false);
            }
        } catch (IOException e) {
            undoPending = true;
            undo(e);
            throw e;
        }
        lastRecord = end;
        end += frame.capacity();
        records++;
    }

    /** Forces every record appended so far to the disk. */
    void force() throws IOException {
        channel.force(false);
    }

    /** Cuts whatever a failed write left after the last good record; throws {@code cause} if it cannot. */
    private void undo(IOException cause) throws IOException {
        try {
            channel.truncate(end);
            channel.force(true);
            undoPending = false;
        } catch (IOException e) {
            log.error("{}: cannot cut a failed write back to offset {}; refusing writes until it can", path, end, e);
            cause.addSuppressed(e);
            throw cause;
        }
    }

    /** The payload of the record at {@code offset}, checked. */
    byte[] readAt(long offset) throws IOException {
        if (offset < MAGIC.length || offset + OVERHEAD > end) {
            throw new StoreCorruptedException(path, offset, "no record here (file ends at " + end + ")");
        }
        ByteBuffer header = ByteBuffer.wrap(read(offset, 8));
        int length = header.getInt();
        int crc = header.getInt();
        if (length <= 0 || length > maxRecord || offset + OVERHEAD + length > end) {
            throw new StoreCorruptedException(path, offset, "record length " + length + " (expected: 1.."
                                                            + Math.min(maxRecord, end - offset - OVERHEAD) + ")");
        }
        byte[] payload = read(offset + 8, length);
        CRC32C check = new CRC32C();
        check.update(ByteBuffer.allocate(4).putInt(0, length));
        check.update(payload);
        if ((int) check.getValue() != crc || ByteBuffer.wrap(read(offset + 8 + length, 4)).getInt() != length) {
            throw new StoreCorruptedException(path, offset, "record of " + length + " bytes fails its checksum");
        }
        return payload;
    }

    /** The offset of the record that ends at {@code recordEnd}, or -1 at the start of the file. */
    long before(long recordEnd) throws IOException {
        if (recordEnd <= MAGIC.length) {
            return -1;
        }
        int length = ByteBuffer.wrap(read(recordEnd - 4, 4)).getInt();
        long start = recordEnd - OVERHEAD - length;
        if (length <= 0 || length > maxRecord || start < MAGIC.length) {
            throw new StoreCorruptedException(path, recordEnd - 4, "record trailer " + length + " (expected: 1.."
                                                                   + maxRecord + ")");
        }
        return start;
    }

    /** The offset after the record at {@code offset}. */
    long after(long offset) throws IOException {
        return offset + OVERHEAD + ByteBuffer.wrap(read(offset, 4)).getInt();
    }

    private byte[] read(long pos, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        readFully(buffer, pos);
        return buffer.array();
    }

    private void readFully(ByteBuffer buffer, long pos) throws IOException {
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, pos);
            if (n < 0) {
                throw new EOFException(path + ": ends at " + pos);
            }
            pos += n;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
