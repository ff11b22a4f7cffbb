package io.unitas.core;

import java.util.List;
import java.util.Objects;

/**
 * What one region can do right now: serve its users ({@code healthy}, the only part the router reads),
 * take writes, how far its replicated data lags, a score in [0, 1], and why it is not fully well.
 *
 * @param healthy          whether the region can serve its users; the router reads only this
 * @param writable         whether the region's primary data store accepts writes
 * @param replicationLagMs measured replication lag in milliseconds, or {@code -1} when unknown
 * @param score            0 (cannot serve) to 1 (fully well); turned into DNS TTLs and weights
 * @param reasons          human-readable reasons for anything failing, empty when all is well
 */
public record RegionHealth(boolean healthy, boolean writable, long replicationLagMs, double score,
                           List<String> reasons) {

    /** Lag value meaning "not measured". */
    public static final long UNKNOWN_LAG = -1;

    private static final RegionHealth UP = new RegionHealth(true, true, UNKNOWN_LAG, 1.0, List.of());
    private static final RegionHealth DOWN = new RegionHealth(false, false, UNKNOWN_LAG, 0.0, List.of());

    /** Validates ranges and freezes {@code reasons}. */
    public RegionHealth {
        if (!(score >= 0.0 && score <= 1.0)) {
            throw new IllegalArgumentException("score: " + score + " (expected: 0 <= score <= 1)");
        }
        if (replicationLagMs < UNKNOWN_LAG) {
            throw new IllegalArgumentException(
                    "replication_lag_ms: " + replicationLagMs + " (expected: >= 0, or -1 for unknown)");
        }
        reasons = List.copyOf(Objects.requireNonNull(reasons, "reasons"));
    }

    /** A region that is fully well, as far as a plain boolean can say. */
    public static RegionHealth up() {
        return UP;
    }

    /** A region that cannot serve, for no stated reason. */
    public static RegionHealth down() {
        return DOWN;
    }

    /** A region that cannot serve, for the given reasons. */
    public static RegionHealth down(List<String> reasons) {
        return new RegionHealth(false, false, UNKNOWN_LAG, 0.0, reasons);
    }

    /** {@link #up()} or {@link #down()}. */
    public static RegionHealth of(boolean healthy) {
        return healthy ? UP : DOWN;
    }
}
