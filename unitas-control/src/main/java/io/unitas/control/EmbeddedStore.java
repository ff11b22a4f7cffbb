package io.unitas.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The default store: an append-only log of whole states in {@code state.log}, one JSON line per revision, forced
 * to disk before a commit returns, so an acknowledged change survives {@code kill -9}. On open the last complete
 * line wins (a torn last line, from a crash mid-write, is cut off). Every {@value #COMPACT_EVERY} commits the log
 * is rewritten to its last state through a temporary file and an atomic rename. The audit log is a second
 * append-only file, {@code audit.log}, forced the same way.
 */
final class EmbeddedStore implements StateStore {

    static final int COMPACT_EVERY = 1_000;

    private final Path dir;
    private final Path log;
    private final Path auditLog;
    private final List<Consumer<ControlState>> listeners = new CopyOnWriteArrayList<>();
    private final Object auditLock = new Object();
    private FileChannel channel;
    private FileChannel auditChannel;
    private long auditSeq;
    private int sinceCompaction;
    private volatile ControlState current;

    EmbeddedStore(Path dir) {
        this.dir = dir;
        this.log = dir.resolve("state.log");
        this.auditLog = dir.resolve("audit.log");
        try {
            Files.createDirectories(dir);
            current = replay();
            channel = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                       StandardOpenOption.APPEND);
            auditSeq = readAudit().size();
            auditChannel = FileChannel.open(auditLog, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                            StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(dir + ": cannot open the control-plane store", e);
        }
    }

    private ControlState replay() throws IOException {
        List<String> lines = completeLines(log);
        return lines.isEmpty() ? ControlState.initial()
                               : StateJson.readState(StateJson.parse(lines.get(lines.size() - 1)));
    }

    /**
     * The file's newline-terminated lines. A last line without its newline was never acknowledged (the process
     * died mid-write): it is cut off so that the next append starts on a line of its own.
     */
    private static List<String> completeLines(Path file) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        byte[] bytes = Files.readAllBytes(file);
        int end = bytes.length;
        while (end > 0 && bytes[end - 1] != '\n') {
            end--;
        }
        if (end < bytes.length) {
            try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) {
                c.truncate(end);
                c.force(true);
            }
        }
        String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
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
        try {
            append(channel, StateJson.write(StateJson.state(next)));
            current = next;
            if (++sinceCompaction >= COMPACT_EVERY) {
                compact();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(log + ": cannot write", e);
        }
        listeners.forEach(l -> l.accept(next));
        return Optional.of(next);
    }

    private static void append(FileChannel channel, String line) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        channel.force(false);
    }

    private void compact() throws IOException {
        Path tmp = dir.resolve("state.log.tmp");
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                              StandardOpenOption.TRUNCATE_EXISTING)) {
            append(c, StateJson.write(StateJson.state(current)));
        }
        channel.close();
        Files.move(tmp, log, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true); // make the rename itself durable
        }
        channel = FileChannel.open(log, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        sinceCompaction = 0;
    }

    @Override
    public void subscribe(Consumer<ControlState> listener) {
        listeners.add(listener);
    }

    @Override
    public AuditEntry audit(AuditEntry entry) {
        synchronized (auditLock) {
            AuditEntry numbered = entry.withSeq(++auditSeq);
            try {
                append(auditChannel, StateJson.write(numbered.toJson()));
            } catch (IOException e) {
                throw new UncheckedIOException(auditLog + ": cannot write", e);
            }
            return numbered;
        }
    }

    @Override
    public List<AuditEntry> audit(long afterSeq, int limit) {
        synchronized (auditLock) {
            try {
                List<AuditEntry> all = readAudit();
                List<AuditEntry> after = new ArrayList<>();
                all.stream().filter(e -> e.seq() > afterSeq).forEach(after::add);
                return List.copyOf(after.subList(Math.max(0, after.size() - limit), after.size()));
            } catch (IOException e) {
                throw new UncheckedIOException(auditLog + ": cannot read", e);
            }
        }
    }

    private List<AuditEntry> readAudit() throws IOException {
        List<AuditEntry> entries = new ArrayList<>();
        completeLines(auditLog).forEach(line -> entries.add(AuditEntry.fromJson(StateJson.parse(line))));
        return entries;
    }

    @Override
    public boolean leader() {
        return true;
    }

    @Override
    public synchronized void close() {
        try {
            channel.close();
            auditChannel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
