package io.unitas.resolver;

import io.unitas.control.client.ControlClient;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Keeps the fallback address pool the control plane publishes ({@code GET /api/v1/fallback-pool}, seed 003) in a file
 * on local disk, where a {@link UnitasResolver} built with {@link UnitasResolver.Builder#fallbackPool} reads it when
 * DNS fails: so clients still have addresses when the control plane, and DNS, are unreachable. Each fetch is
 * verified (length and CRC32) before it replaces the file, atomically; a pool that fails the check, or a control plane
 * that cannot be reached, is refused with one log line and the copy on disk is kept.
 *
 * <pre>{@code
 * FallbackPoolSync sync = FallbackPoolSync.create(FallbackPoolSync.Source.controlPlane(control),
 *                                                 Path.of("/var/lib/shop/fallback-pool.bin"));
 * sync.start(Duration.ofMinutes(1));
 * UnitasResolver resolver = UnitasResolver.builder().fallbackPool(sync.file())...build();
 * }</pre>
 */
public interface FallbackPoolSync extends AutoCloseable {

    /** Where a pool's binary form comes from. */
    @FunctionalInterface
    interface Source {

        /**
         * The pool's binary form as published, unverified.
         *
         * @throws RuntimeException with a one-line message when it cannot be fetched
         */
        byte[] fetch();

        /** The control plane's {@code GET /api/v1/fallback-pool}, through its client. */
        static Source controlPlane(ControlClient control) {
            return control::fallbackPool;
        }
    }

    /**
     * What one fetch did.
     *
     * @param kept    whether the fetched pool was verified and now is the copy on disk
     * @param pool    the pool on disk after the fetch (the old one when refused; empty when there is none)
     * @param problem why it was refused, one line; empty when kept
     */
    record Outcome(boolean kept, FallbackPool pool, String problem) {}

    /**
     * A sync of {@code source} into {@code file}. The file is read now; one that fails the check is refused with one
     * line and the pool is empty until a fetch is kept.
     */
    static FallbackPoolSync create(Source source, Path file) {
        return new DefaultFallbackPoolSync(source, file);
    }

    /** Fetches once, and keeps the pool when it passes the check. Never throws for a bad pool or an unreachable source. */
    Outcome refresh();

    /** Fetches at once and then every {@code every} on a daemon thread until {@link #close()}. */
    void start(Duration every);

    /** The pool on disk now. */
    FallbackPool pool();

    /** The file the pool is kept in. */
    Path file();

    /** Why the last fetch was refused; empty when it was kept (or none ran). */
    String problem();

    /** Fetches refused so far (checksum, length, source unreachable). */
    long refused();

    /** Stops the background fetches, if started. */
    @Override
    void close();
}
