package io.unitas.resolver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link FallbackPoolSync}: fetches are serialized; the file is replaced by a move, so a reader never sees half. */
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
        try {
            Path next = file.resolveSibling(file.getFileName() + ".new");
            Files.write(next, data);
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
                } catch (RuntimeException e) {
                    // refresh says its problems; anything else must not end the schedule
                    LOG.warn("fallback pool: fetch failed: {}", e.toString());
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
