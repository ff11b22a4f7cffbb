package io.unitas.core;

import java.util.List;
import java.util.Objects;

/**
 * What one region can do right now: serve its users ({@code healthy}), take writes ({@code writable}), how far its
 * replicated data lags, a score in [0, 1], why it is not fully well, and since when it has been healthy. The
 * {@link Router} reads {@code healthy} and {@code healthySinceMs} for every request (a region is admitted once it
 * has been healthy for the router's hold-down) and {@code writable} for writes (a read-only region keeps serving
 * reads; its writes are fenced or fail over, by policy).
 *
 * @param healthy          whether the region can serve its users
 * @param writable         whether the region's primary data store accepts writes
 * @param replicationLagMs measured replication lag in milliseconds, or {@code -1} when unknown
 * @param score            0 (cannot serve) to 1 (fully well); turned into DNS TTLs and weights
 * @param reasons          human-readable reasons for anything failing, empty when all is well
 * @param healthySinceMs   when the region last turned healthy (epoch milliseconds), or {@link #SINCE_UNKNOWN}
 *                         when it has been healthy for as long as anyone saw it (admitted at once)
 */
public record RegionHealth(boolean healthy, boolean writable, long replicationLagMs, double score,
                           List<String> reasons, long healthySinceMs) {

    /** Lag value meaning "not measured". */
    public static final long UNKNOWN_LAG = -1;

    /** {@link #healthySinceMs()} of a region healthy for as long as anyone saw it: no hold-down holds it back. */
    public static final long SINCE_UNKNOWN = Long.MIN_VALUE;

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

    /** A region's health with no known time of turning healthy ({@link #SINCE_UNKNOWN}). */
    public RegionHealth(boolean healthy, boolean writable, long replicationLagMs, double score, List<String> reasons) {
        this(healthy, writable, replicationLagMs, score, reasons, SINCE_UNKNOWN);
    }

    /** This health, healthy since {@code epochMs} ({@link #SINCE_UNKNOWN}: for as long as anyone saw it). */
    public RegionHealth healthySince(long epochMs) {
        return epochMs == healthySinceMs ? this
                                         : new RegionHealth(healthy, writable, replicationLagMs, score, reasons, epochMs);
    }

    /**
     * Whether the region may take traffic at {@code nowMs} under a hold-down of {@code holdDownMs}: it is healthy,
     * and has been for at least the hold-down (or for as long as anyone saw it). Allocation-free.
     */
    public boolean admitted(long nowMs, long holdDownMs) {
        return healthy && (healthySinceMs == SINCE_UNKNOWN || nowMs - healthySinceMs >= holdDownMs);
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
