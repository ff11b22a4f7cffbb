package io.unitas.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The embedded store's audit log: {@code audit/<first seq>.log}, segments of {@link RecordFile} records of a
 * bounded size, the oldest deleted when the segments outgrow their byte budget. Every entry is forced before
 * {@link #append} returns. Reads walk back from the newest segment's end, so {@code limit=1} reads one record
 * whatever the log's length; opening checks only the newest segment.
 *
 * <p>What a caller chooses is bounded: the reason and the detail are cut to their limits, and refusals of
 * unauthenticated or forbidden requests are aggregated: the first of an actor's refusals for one action in a
 * window is written, the others in that window are counted and written as one entry with their count when the
 * window has passed (on the next append, or on close). So anonymous requests add at most one entry per action a
 * minute, however many there are. Windows are measured on the entries' own times (the control plane's clock).
 */
final class AuditLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
    private static final Set<String> AGGREGATED = Set.of("unauthenticated", "forbidden");

    /**
     * The audit log's budgets.
     *
     * @param segmentBytes  a segment is sealed and a new one started past this size
     * @param budgetBytes   the oldest segments are deleted while all of them together are larger
     * @param reasonChars   the longest reason kept (a caller's {@code X-Unitas-Reason})
     * @param detailChars   the longest detail kept
     * @param refusalWindow the window in which an actor's refusals for one action are counted, not written
     */
    record Limits(long segmentBytes, long budgetBytes, int reasonChars, int detailChars, Duration refusalWindow) {

        /** 4 MiB segments, 256 MiB in all, reasons of 256 characters, details of 2,048, one-minute windows. */
        static final Limits DEFAULT = new Limits(4L << 20, 256L << 20, 256, 2_048, Duration.ofMinutes(1));

        Limits {
            if (segmentBytes < 4096 || budgetBytes < segmentBytes) {
                throw new IllegalArgumentException("audit segments: " + segmentBytes + " bytes, budget " + budgetBytes
                                                   + " (expected: segment >= 4096, budget >= segment)");
            }
            if (reasonChars < 16 || detailChars < 16 || refusalWindow.isNegative()) {
                throw new IllegalArgumentException("audit limits: reason " + reasonChars + ", detail " + detailChars
                        + ", window " + refusalWindow + " (expected: >= 16 characters, window >= 0)");
            }
        }
    }

    /** Refusals counted in one window; the first of them was written as {@code firstSeq}. */
    private static final class Window {
        final AuditEntry first;
        final Instant ends;
        long more;
        AuditEntry last;

        Window(AuditEntry first, Instant ends) {
            this.first = first;
            this.ends = ends;
        }
    }

    private record Segment(long firstSeq, Path path) {}

    private final Path dir;
    private final Limits limits;
    private final int maxRecord;
    private final ChannelOpener opener;
    private final Counter aggregated;
    private final Counter deleted;
    private final Counter tornTailBytes;
    private final Deque<Segment> segments = new ArrayDeque<>();
    private final Map<String, Window> windows = new LinkedHashMap<>();
    private RecordFile head;
    private long nextSeq;
    private long bytes;

    AuditLog(Path storeDir, Limits limits, int maxRecord, ChannelOpener opener, MeterRegistry meters)
            throws IOException {
        this.dir = storeDir.resolve("audit");
        this.limits = limits;
        this.maxRecord = maxRecord;
        this.opener = opener;
        this.aggregated = Counter.builder("unitas.control.audit.refusals.aggregated")
                .description("refusals counted into an aggregate audit entry instead of written one by one")
                .register(meters);
        this.deleted = Counter.builder("unitas.control.audit.segments.deleted")
                .description("audit segments deleted to keep the audit log within its byte budget").register(meters);
        this.tornTailBytes = Counter.builder("unitas.control.audit.torn.tail.bytes")
                .description("bytes of never-acknowledged torn audit records cut off on open").register(meters);
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.log")).sorted()
                 .forEach(p -> segments.add(new Segment(Long.parseLong(p.getFileName().toString().substring(0, 20)),
                                                         p)));
        }
        for (Segment s : segments) {
            bytes += Files.size(s.path());
        }
        if (segments.isEmpty()) {
            nextSeq = 1;
            startSegment();
        } else {
            Segment newest = segments.peekLast();
            head = RecordFile.open(newest.path(), opener, maxRecord, tornTailBytes::increment);
            nextSeq = head.lastRecord() < 0 ? newest.firstSeq() : decode(head, head.lastRecord()).seq() + 1;
        }
        migrateFirstVersion(storeDir.resolve("audit.log"));
    }

    /**
     * The first version's {@code audit.log} (JSON lines), read line by line into segments once, keeping each
     * entry's sequence number, with one force per segment rather than per entry (the old file stays until the
     * new segments are durable, and a second run skips what the first wrote). A torn last line, without its
     * newline, was never acknowledged: it is dropped, and said so with its line. A damaged line before the end
     * stops the start, naming its file and line.
     */
    private void migrateFirstVersion(Path old) throws IOException {
        if (!Files.exists(old)) {
            return;
        }
        long size = Files.size(old);
        long read = 0;
        long lineNumber = 0;
        try (BufferedReader reader = Files.newBufferedReader(old, StandardCharsets.UTF_8)) {
            for (String line; (line = reader.readLine()) != null; ) {
                lineNumber++;
                read += line.getBytes(StandardCharsets.UTF_8).length + 1;
                if (read > size) {
                    log.warn("{}:{}: dropped a torn last line of {} bytes (never acknowledged)", old, lineNumber,
                             line.getBytes(StandardCharsets.UTF_8).length);
                    break;
                }
                if (line.isBlank()) {
                    continue;
                }
                AuditEntry entry;
                try {
                    entry = AuditEntry.fromJson(StateJson.parse(line));
                } catch (RuntimeException e) {
                    throw new StoreCorruptedException(old, lineNumber, "not an audit entry: " + e.getMessage(),
                                                      "one JSON audit entry per line; repair or remove the line");
                }
                if (entry.seq() >= nextSeq) {
                    nextSeq = entry.seq();
                    write(entry.capped(limits.reasonChars(), limits.detailChars()), false);
                }
            }
        }
        head.force();
        Files.delete(old);
        log.info("{}: migrated to {} (segmented, checksummed), {} lines", old, dir, lineNumber);
    }

    /** Appends {@code entry} (or counts it into its window), durably; returns it with its sequence number. */
    synchronized AuditEntry append(AuditEntry entry) {
        AuditEntry capped = entry.capped(limits.reasonChars(), limits.detailChars());
        try {
            flushWindows(capped.at());
            if (!AGGREGATED.contains(capped.outcome()) || limits.refusalWindow().isZero()) {
                return write(capped);
            }
            String key = capped.actor() + '\n' + capped.outcome() + '\n' + capped.action();
            Window window = windows.get(key);
            if (window != null) {
                window.more++;
                window.last = capped;
                aggregated.increment();
                return window.first;
            }
            AuditEntry first = write(capped);
            windows.put(key, new Window(first, capped.at().plus(limits.refusalWindow())));
            return first;
        } catch (IOException e) {
            throw new UncheckedIOException(head.path() + ": cannot write the audit entry: " + e.getMessage(), e);
        }
    }

    /** Writes the count of every window that has ended by {@code now} and forgets it. */
    private void flushWindows(Instant now) throws IOException {
        for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
            Window w = it.next();
            if (now != null && now.isBefore(w.ends)) {
                continue;
            }
            if (w.more > 0) {
                AuditEntry last = w.last;
                write(new AuditEntry(0, last.at(), last.actor(), last.action(), last.target(), last.outcome(),
                                     last.reason(), 0, w.more + " more like entry " + w.first.seq() + " from "
                                     + w.first.at() + " to " + last.at() + "; the last: " + last.detail(), w.more,
                                     last.client()));
            }
            it.remove();
        }
    }

    private AuditEntry write(AuditEntry entry) throws IOException {
        return write(entry, true);
    }

    /** Writes {@code entry}, forced to the disk unless {@code durable} is false (then by the next force). */
    private AuditEntry write(AuditEntry entry, boolean durable) throws IOException {
        AuditEntry numbered = entry.withSeq(nextSeq);
        byte[] record = StateJson.write(numbered.toJson()).getBytes(StandardCharsets.UTF_8);
        if (head.records() > 0 && head.end() + record.length + RecordFile.OVERHEAD > limits.segmentBytes()) {
            head.force(); // a sealed segment is whole on the disk before the next one's name is
            startSegment();
        }
        long before = head.end();
        head.append(record, durable);
        bytes += head.end() - before;
        nextSeq++;
        return numbered;
    }

    /** Seals the head (if any) and starts a segment at {@code nextSeq}; deletes the oldest past the budget. */
    private void startSegment() throws IOException {
        Segment segment = new Segment(nextSeq, dir.resolve(String.format("%020d.log", nextSeq)));
        RecordFile next = RecordFile.open(segment.path(), opener, maxRecord, tornTailBytes::increment);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true); // the new segment's name is durable before anything in it is acknowledged
        }
        if (head != null) {
            head.close();
        }
        head = next;
        segments.addLast(segment);
        bytes += head.end();
        while (bytes > limits.budgetBytes() && segments.size() > 1) {
            Segment oldest = segments.removeFirst();
            bytes -= Files.size(oldest.path());
            Files.delete(oldest.path());
            deleted.increment();
            log.info("{}: deleted to keep the audit log within {} bytes", oldest.path(), limits.budgetBytes());
        }
    }

    /**
     * The newest {@code limit} entries with a sequence number above {@code afterSeq}, oldest first, read back from
     * the end of the newest segment.
     */
    synchronized List<AuditEntry> read(long afterSeq, int limit) {
        List<AuditEntry> newestFirst = new ArrayList<>();
        try {
            for (Iterator<Segment> it = segments.descendingIterator(); it.hasNext() && newestFirst.size() < limit; ) {
                Segment segment = it.next();
                boolean isHead = segment.path().equals(head.path());
                RecordFile file = isHead ? head : RecordFile.openSealed(segment.path(), opener, maxRecord);
                try {
                    for (long at = file.before(file.end()); at >= 0 && newestFirst.size() < limit;
                         at = file.before(at)) {
                        AuditEntry entry = decode(file, at);
                        if (entry.seq() <= afterSeq) {
                            return reversed(newestFirst);
                        }
                        newestFirst.add(entry);
                    }
                } finally {
                    if (!isHead) {
                        file.close();
                    }
                }
                if (segment.firstSeq() <= afterSeq + 1) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(dir + ": cannot read the audit log: " + e.getMessage(), e);
        }
        return reversed(newestFirst);
    }

    private static List<AuditEntry> reversed(List<AuditEntry> entries) {
        Collections.reverse(entries);
        return List.copyOf(entries);
    }

    private static AuditEntry decode(RecordFile file, long offset) throws IOException {
        try {
            return AuditEntry.fromJson(StateJson.parse(new String(file.readAt(offset), StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            if (e instanceof StoreCorruptedException c) {
                throw c;
            }
            throw new StoreCorruptedException(file.path(), offset, "an audit entry: " + e.getMessage());
        }
    }

    /** The segments' total size in bytes. */
    synchronized long bytes() {
        return bytes;
    }

    /** Writes the counts of open windows, then closes the newest segment. */
    @Override
    public synchronized void close() {
        try {
            flushWindows(null);
        } catch (IOException e) {
            log.warn("{}: could not write the last aggregated refusals: {}", dir, e.toString());
        }
        try {
            head.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
