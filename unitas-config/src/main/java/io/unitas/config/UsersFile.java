package io.unitas.config;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * A streaming reader of a users CSV: a header {@code user_id,region} or {@code user_id,region,load}, then one
 * user per line (load defaults to 1 without the column). Fields are not quoted; {@code \r\n} line ends and
 * blank lines are accepted. Built for tens of millions of rows: it parses bytes in a large buffer, allocates
 * nothing per row unless asked for strings, and matches the home region against the given region ids without
 * decoding it.
 *
 * <pre>
 * try (UsersFile users = UsersFile.open(path, List.of("cn", "eu", "us"))) {
 *     while (users.next()) {
 *         int home = users.home(); // index into the region ids, or -1
 *     }
 * }
 * </pre>
 * A malformed row throws {@link ConfigException} naming the file and line: {@code users.csv:7: 4 fields
 * (expected: 3: user_id,region,load)}.
 */
public final class UsersFile implements Closeable {

    private static final int BUFFER = 1 << 20;
    private static final byte[] HEADER = "user_id,region".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEADER_WITH_LOAD = "user_id,region,load".getBytes(StandardCharsets.US_ASCII);

    private final String name;
    private final InputStream in;
    private final long size;
    private final byte[][] regionIds;
    private final boolean hasLoad;
    private byte[] buf = new byte[BUFFER];
    private int pos;
    private int limit;
    private boolean eof;
    private long consumed;
    private long line;

    // The current line is buf[idStart, limitOfLine), without its line end; its fields lie within, and the first
    // commas of the line are at these offsets from its start.
    private final int[] commas = new int[2];
    private int commaCount;
    private int limitOfLine;
    private int idStart;
    private int idEnd;
    private int homeStart;
    private int homeEnd;
    private int home;
    private double load;

    private UsersFile(String name, InputStream in, long size, List<String> regionIds) throws IOException {
        this.name = name;
        this.in = in;
        this.size = size;
        this.regionIds = regionIds.stream().map(id -> id.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        if (!nextLine()) {
            throw new ConfigException(name + ": empty (expected: a header user_id,region or user_id,region,load)");
        }
        int start = idStart;
        // A byte order mark is invisible in editors; accept it rather than reject a header that looks right.
        if (limitOfLine - start >= 3 && (buf[start] & 0xff) == 0xEF && (buf[start + 1] & 0xff) == 0xBB
            && (buf[start + 2] & 0xff) == 0xBF) {
            start += 3;
        }
        if (equals(start, limitOfLine, HEADER_WITH_LOAD)) {
            hasLoad = true;
        } else if (equals(start, limitOfLine, HEADER)) {
            hasLoad = false;
        } else {
            throw error("header '" + new String(buf, start, limitOfLine - start, StandardCharsets.UTF_8)
                        + "' (expected: user_id,region or user_id,region,load)");
        }
    }

    /**
     * Opens {@code file} and reads its header; {@code regionIds} are the ids {@link #home()} indexes into.
     *
     * @throws ConfigException when the file cannot be read or its header is wrong
     */
    public static UsersFile open(Path file, List<String> regionIds) {
        InputStream in;
        long size;
        try {
            in = Files.newInputStream(file);
            size = Files.size(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": no such file");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage());
        }
        try {
            return new UsersFile(file.toString(), in, size, regionIds);
        } catch (IOException e) {
            closeQuietly(in);
            throw new ConfigException(file + ": cannot read: " + e.getMessage());
        } catch (RuntimeException e) {
            closeQuietly(in);
            throw e;
        }
    }

    private static void closeQuietly(InputStream in) {
        try {
            in.close();
        } catch (IOException ignored) {
            // already failing with a better message
        }
    }

    /**
     * Moves to the next user.
     *
     * @return false at the end of the file
     * @throws ConfigException for a row with the wrong number of fields, an empty user id or a bad load
     */
    public boolean next() {
        try {
            while (nextLine()) {
                if (limitOfLine > idStart) {
                    parseRow();
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new ConfigException(name + ": cannot read: " + e.getMessage());
        }
    }

    // One pass over the bytes finds the line end and the commas: both sort below every byte of a typical id.
    private boolean nextLine() throws IOException {
        int scan = pos;
        commaCount = 0;
        while (true) {
            byte[] b = buf;
            int end = limit;
            for (int i = scan; i < end; i++) {
                byte c = b[i];
                if (c <= ',') {
                    if (c == '\n') {
                        setLine(pos, i > pos && b[i - 1] == '\r' ? i - 1 : i);
                        consumed += i + 1 - pos;
                        pos = i + 1;
                        return true;
                    }
                    if (c == ',') {
                        if (commaCount < commas.length) {
                            commas[commaCount] = i - pos; // relative, so that refilling the buffer keeps it valid
                        }
                        commaCount++;
                    }
                }
            }
            if (eof) {
                if (pos == limit) {
                    return false;
                }
                setLine(pos, buf[limit - 1] == '\r' ? limit - 1 : limit);
                consumed += limit - pos;
                pos = limit;
                return true;
            }
            scan = limit - pos;
            fill();
        }
    }

    private void setLine(int start, int end) {
        line++;
        idStart = start;
        limitOfLine = end;
    }

    private void fill() throws IOException {
        int remaining = limit - pos;
        if (pos == 0 && limit == buf.length) {
            if (buf.length >= 64 * BUFFER) {
                throw error("line longer than " + buf.length + " bytes (expected: one user per line)");
            }
            buf = java.util.Arrays.copyOf(buf, buf.length * 2);
        } else {
            System.arraycopy(buf, pos, buf, 0, remaining);
        }
        pos = 0;
        limit = remaining;
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            eof = true;
        } else {
            limit += n;
        }
    }

    private void parseRow() {
        int end = limitOfLine;
        int fields = commaCount + 1;
        int expected = hasLoad ? 3 : 2;
        if (fields != expected) {
            throw error(fields + (fields == 1 ? " field" : " fields") + " (expected: " + expected + ": "
                        + (hasLoad ? "user_id,region,load" : "user_id,region") + ")");
        }
        idEnd = idStart + commas[0];
        if (idEnd == idStart) {
            throw error("user_id: empty (expected: a user id)");
        }
        homeStart = idEnd + 1;
        homeEnd = hasLoad ? idStart + commas[1] : end;
        home = indexOfRegion(homeStart, homeEnd);
        load = hasLoad ? parseLoad(homeEnd + 1, end) : 1;
    }

    // A plain loop: region ids are a few bytes, too short for Arrays.equals's range checks and vector setup to pay.
    private int indexOfRegion(int start, int end) {
        int length = end - start;
        byte[] b = buf;
        next:
        for (int r = 0; r < regionIds.length; r++) {
            byte[] id = regionIds[r];
            if (id.length != length) {
                continue;
            }
            for (int k = 0; k < length; k++) {
                if (b[start + k] != id[k]) {
                    continue next;
                }
            }
            return r;
        }
        return -1;
    }

    private boolean equals(int start, int end, byte[] expected) {
        return java.util.Arrays.equals(buf, start, end, expected, 0, expected.length);
    }

    private double parseLoad(int start, int end) {
        long whole = 0;
        int i = start;
        // Plain integers, by far the common case, parse without a string.
        while (i < end && i - start < 15 && buf[i] >= '0' && buf[i] <= '9') {
            whole = whole * 10 + (buf[i++] - '0');
        }
        if (i == end && end > start) {
            return whole;
        }
        String text = new String(buf, start, end - start, StandardCharsets.UTF_8);
        double v;
        try {
            v = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw error("load: '" + text + "' (expected: a number >= 0)");
        }
        if (!(v >= 0 && Double.isFinite(v)) || text.strip().length() != text.length()) {
            throw error("load: '" + text + "' (expected: a number >= 0)");
        }
        return v;
    }

    private ConfigException error(String message) {
        return new ConfigException(name + ":" + line + ": " + message);
    }

    /** Whether the header has the {@code load} column. */
    public boolean hasLoad() {
        return hasLoad;
    }

    /** The current row's line number in the file (the header is line 1). */
    public long line() {
        return line;
    }

    /** The index of the current user's home in the region ids given to {@link #open}, or -1 for any other. */
    public int home() {
        return home;
    }

    /** The current user's load: the third field, or 1 without a load column. */
    public double load() {
        return load;
    }

    /** The current user's id, decoded (allocates). */
    public String userId() {
        return new String(buf, idStart, idEnd - idStart, StandardCharsets.UTF_8);
    }

    /** The current user's home region id as written, decoded (allocates). */
    public String homeId() {
        return new String(buf, homeStart, homeEnd - homeStart, StandardCharsets.UTF_8);
    }

    /** The buffer holding the current row's bytes; valid until the next call to {@link #next()}. */
    public byte[] buffer() {
        return buf;
    }

    /** Where the current user id starts in {@link #buffer()}. */
    public int userIdStart() {
        return idStart;
    }

    /** Where the current user id ends (exclusive) in {@link #buffer()}. */
    public int userIdEnd() {
        return idEnd;
    }

    /** Where the current home id starts in {@link #buffer()}. */
    public int homeStart() {
        return homeStart;
    }

    /** Where the current home id ends (exclusive) in {@link #buffer()}. */
    public int homeEnd() {
        return homeEnd;
    }

    /** Bytes of the file consumed so far, for progress reporting. */
    public long bytesRead() {
        return consumed;
    }

    /** The file's size in bytes when opened. */
    public long size() {
        return size;
    }

    @Override
    public void close() {
        closeQuietly(in);
    }
}
