package io.unitas.resolver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link FallbackPoolSync}: fetches are serialized; the file is replaced by a move, so a reader never sees half. It is
 * written through a new temporary file of an unpredictable name in its directory, and a pool file that is a symbolic
 * link is refused: a link planted there (the directory may be shared) cannot make the process write another file.
 */
final class DefaultFallbackPoolSync implements FallbackPoolSync {

    private static final Logger LOG = LoggerFactory.getLogger(FallbackPoolSync.class);

    private final Source source;
    private final Path file;
    private final AtomicLong refused = new AtomicLong();
    private volatile FallbackPool pool = FallbackPool.EMPTY;
    private volatile String problem = "";
    private ScheduledExecutorService background; // guarded by this

    DefaultFallbackPoolSync(Source source, Path file) {
        this.source = Objects.requireNonNull(source, "source");
        this.file = Objects.requireNonNull(file, "file");
        if (Files.isSymbolicLink(file)) {
            problem = linkProblem();
            LOG.warn("fallback pool: {}", problem);
            return;
        }
        try {
            pool = FallbackPool.decodeBinary(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            // none kept yet: the first fetch writes it
        } catch (IOException e) {
            problem = file + ": cannot read: " + e.getMessage();
            LOG.warn("fallback pool: {}", problem);
        } catch (IllegalArgumentException e) {
            problem = file + ": " + e.getMessage() + " (expected: a CRC32-checked pool); refused, no pool until a"
                      + " fetch is kept";
            LOG.warn("fallback pool: {}", problem);
        }
    }

    @Override
    public synchronized Outcome refresh() {
        FallbackPool fetched;
        byte[] data;
        try {
            data = source.fetch();
            fetched = FallbackPool.decodeBinary(data);
            if (fetched.addresses().isEmpty()) {
                // The control plane was given none: nothing to fall back on is no reason to forget the last pool.
                return refuse("no addresses (expected: at least one)");
            }
        } catch (RuntimeException e) {
            return refuse(e.getMessage());
        }
        if (Files.isSymbolicLink(file)) {
            return refuse(linkProblem());
        }
        try {
            Path next = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName() + ".", ".tmp");
            try {
                Files.write(next, data, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
                Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(next);
            }
        } catch (IOException e) {
            return refuse(file + ": cannot write: " + e.getMessage());
        }
        pool = fetched;
        if (!problem.isEmpty()) {
            LOG.info("fallback pool: kept again ({} addresses) after: {}", fetched.addresses().size(), problem);
        }
        problem = "";
        return new Outcome(true, fetched, "");
    }

    private String linkProblem() {
        return file + ": is a symbolic link (expected: a regular file, or none)";
    }

    private Outcome refuse(String why) {
        refused.incrementAndGet();
        String line = "fetched pool refused: " + why + "; keeping " + file + " (" + pool.addresses().size()
                      + " addresses)";
        if (!line.equals(problem)) {
            LOG.warn("fallback pool: {}", line);
        }
        problem = line;
        return new Outcome(false, pool, line);
    }

    @Override
    public synchronized void start(Duration every) {
        if (every.isNegative() || every.isZero()) {
            throw new IllegalArgumentException("every: " + every + " (expected: > 0)");
        }
        if (background == null) {
            background = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "unitas-fallback-pool");
                t.setDaemon(true);
                return t;
            });
            background.scheduleWithFixedDelay(() -> {
                try {
                    refresh();
                } catch (Throwable e) { // NOPMD: one uncaught Error would cancel the schedule for good
                    // refresh says its problems; anything else must not end the schedule
                    LOG.warn("fallback pool: fetch failed: {}; retrying on the next run", e.toString());
                }
            }, 0, every.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public FallbackPool pool() {
        return pool;
    }

    @Override
    public Path file() {
        return file;
    }

    @Override
    public String problem() {
        return problem;
    }

    @Override
    public long refused() {
        return refused.get();
    }

    @Override
    public synchronized void close() {
        if (background != null) {
            background.shutdownNow();
            background = null;
        }
    }
}
