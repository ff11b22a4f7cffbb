package io.unitas.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;

/**
 * The default store: {@code state.log}, a {@link RecordFile} of whole states, one record per revision, forced to
 * disk before a commit returns, so an acknowledged change survives {@code kill -9} and a full disk. On open the
 * last valid record wins (a torn tail, from a crash mid-write, is cut off and counted); corruption before the end
 * stops the start with the file and offset. When the log outgrows its byte budget it is rewritten to its last
 * state through a temporary file and an atomic rename. Replay reads the log in chunks and decodes only the last
 * record, so it needs memory for one state, not for the log. The audit log is an {@link AuditLog} in
 * {@code audit/}. A {@code state.log} of the first version (JSON lines) is migrated once on open.
 */
final class EmbeddedStore implements StateStore {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedStore.class);

    /**
     * The byte budgets of the embedded store.
     *
     * @param maxRecordBytes the largest state (and audit entry) stored; a bigger commit is refused
     * @param compactBytes   the log is compacted when it grows past this (or past four of its last state)
     * @param audit          the audit log's budgets
     */
    record Limits(int maxRecordBytes, long compactBytes, AuditLog.Limits audit) {

        /** 16 MiB per state, compaction past 64 MiB, the audit log's defaults. */
        static final Limits DEFAULT = new Limits(16 << 20, 64L << 20, AuditLog.Limits.DEFAULT);

        Limits {
            if (maxRecordBytes < 1024) {
                throw new IllegalArgumentException("max record: " + maxRecordBytes + " bytes (expected: >= 1024)");
            }
            if (compactBytes < maxRecordBytes) {
                throw new IllegalArgumentException("compaction: " + compactBytes + " bytes (expected: >= the max "
                                                   + "record, " + maxRecordBytes + ")");
            }
        }
    }

    private final Path dir;
    private final Path logFile;
    private final Limits limits;
    private final ChannelOpener opener;
    private final AuditLog audit;
    private final List<Consumer<ControlState>> listeners = new CopyOnWriteArrayList<>();
    private final Counter writeFailures;
    private final Counter compactionFailures;
    private final Counter tornTailBytes;
    private RecordFile file;
    private volatile ControlState current;

    EmbeddedStore(Path dir) {
        this(dir, Limits.DEFAULT, ChannelOpener.SYSTEM, Metrics.globalRegistry);
    }

    EmbeddedStore(Path dir, Limits limits, ChannelOpener opener, MeterRegistry meters) {
        this.dir = dir;
        this.logFile = dir.resolve("state.log");
        this.limits = limits;
        this.opener = opener;
        this.writeFailures = Counter.builder("unitas.control.store.write.failures")
                .description("state log appends that failed (the file was cut back; the change was refused)")
                .register(meters);
        this.compactionFailures = Counter.builder("unitas.control.store.compaction.failures")
                .description("state log compactions that failed (retried on the next commit)").register(meters);
        this.tornTailBytes = Counter.builder("unitas.control.store.torn.tail.bytes")
                .description("bytes of never-acknowledged torn records cut off on open").register(meters);
        try {
            Files.createDirectories(dir);
            migrateFirstVersion();
            file = RecordFile.open(logFile, opener, limits.maxRecordBytes(), tornTailBytes::increment);
            current = file.lastRecord() < 0 ? ControlState.initial() : decode(file.readAt(file.lastRecord()));
            audit = new AuditLog(dir, limits.audit(), limits.maxRecordBytes(), opener, meters);
        } catch (IOException e) {
            throw new UncheckedIOException(dir + ": cannot open the control-plane store", e);
        }
    }

    private ControlState decode(byte[] record) {
        try {
            return StateJson.readState(StateJson.parse(new String(record, StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            throw new StoreCorruptedException(logFile, file.lastRecord(), "the last state: " + e.getMessage());
        }
    }

    /**
     * The first version wrote JSON lines: its last complete line is the state. Rewritten once into the record
     * format, read line by line so a big log needs no more memory than its longest line.
     */
    private void migrateFirstVersion() throws IOException {
        if (!Files.exists(logFile) || Files.size(logFile) == 0) {
            return;
        }
        try (var in = Files.newInputStream(logFile)) {
            if (in.read() != '{') {
                return;
            }
        }
        String last = null;
        try (BufferedReader reader = Files.newBufferedReader(logFile, StandardCharsets.UTF_8)) {
            long complete = 0;
            long size = Files.size(logFile);
            for (String line; (line = reader.readLine()) != null; ) {
                complete += line.getBytes(StandardCharsets.UTF_8).length + 1;
                if (complete <= size) { // a last line without its newline was never acknowledged
                    last = line;
                }
            }
        }
        Path tmp = dir.resolve("state.log.tmp");
        Files.deleteIfExists(tmp);
        try (RecordFile next = RecordFile.open(tmp, opener, limits.maxRecordBytes(), n -> {})) {
            if (last != null && !last.isBlank()) {
                StateJson.readState(StateJson.parse(last)); // refuse to migrate what cannot be read back
                next.append(last.getBytes(StandardCharsets.UTF_8));
            }
        }
        replace(tmp, logFile);
        log.info("{}: migrated to the record format (checksummed, length-framed)", logFile);
    }

    @Override
    public ControlState current() {
        return current;
    }

    @Override
    public synchronized Optional<ControlState> commit(ControlState next) {
        if (next.revision() != current.revision() + 1) {
            return Optional.empty();
        }
        byte[] record = StateJson.write(StateJson.state(next)).getBytes(StandardCharsets.UTF_8);
        if (record.length > limits.maxRecordBytes()) {
            throw new RecordTooLargeException(logFile, record.length, limits.maxRecordBytes());
        }
        try {
            file.append(record);
        } catch (IOException e) {
            writeFailures.increment();
            throw new UncheckedIOException(logFile + ": cannot write revision " + next.revision()
                                           + " (nothing was stored): " + e.getMessage(), e);
        }
        current = next;
        if (file.end() > Math.max(limits.compactBytes(), 4L * (record.length + RecordFile.OVERHEAD))) {
            compact(record);
        }
        listeners.forEach(l -> l.accept(next));
        return Optional.of(next);
    }

    /** Rewrites the log to its last state; a failure leaves the longer log in place and is retried next commit. */
    private void compact(byte[] last) {
        Path tmp = dir.resolve("state.log.tmp");
        try {
            Files.deleteIfExists(tmp);
            try (RecordFile next = RecordFile.open(tmp, opener, limits.maxRecordBytes(), n -> {})) {
                next.append(last);
            }
        } catch (IOException e) {
            compactionFailed(e);
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // the next compaction starts by deleting it again
            }
            return;
        }
        try {
            file.close();
            replace(tmp, logFile);
        } catch (IOException e) {
            compactionFailed(e);
        }
        try {
            file = RecordFile.open(logFile, opener, limits.maxRecordBytes(), tornTailBytes::increment);
        } catch (IOException e) {
            throw new UncheckedIOException(logFile + ": cannot reopen after compaction", e);
        }
    }

    private void compactionFailed(IOException e) {
        compactionFailures.increment();
        log.warn("{}: compaction failed; the log keeps growing until it succeeds: {}", logFile, e.toString());
    }

    /** Moves {@code from} over {@code to} atomically and makes the rename itself durable. */
    private void replace(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    @Override
    public void subscribe(Consumer<ControlState> listener) {
        listeners.add(listener);
    }

    @Override
    public AuditEntry audit(AuditEntry entry) {
        return audit.append(entry);
    }

    @Override
    public List<AuditEntry> audit(long afterSeq, int limit) {
        return audit.read(afterSeq, limit);
    }

    @Override
    public boolean leader() {
        return true;
    }

    @Override
    public synchronized void close() {
        try {
            file.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            audit.close();
        }
    }
}
