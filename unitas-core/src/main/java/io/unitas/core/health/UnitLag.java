package io.unitas.core.health;

import java.time.Instant;
import java.util.Objects;

import io.unitas.core.Region;

/**
 * How far one unit's data, shipped by the region that reports it, is behind in another region: the age of the
 * oldest change of that unit not yet applied there. A switchover waits on this, not on a database's standby lag,
 * because only the moving units' changes have to arrive before their home can move.
 *
 * @param unit       the unit whose changes are shipped
 * @param to         the region they are shipped to
 * @param lagMs      the age in milliseconds of the oldest change of {@code unit} not yet applied in {@code to};
 *                   0 when caught up
 * @param measuredAt when it was measured, so that a reader can refuse an old measurement
 * @param changes    how many changes of {@code unit} are not yet applied in {@code to} (at most this many), or
 *                   {@link #UNKNOWN_CHANGES} when the measurement does not count them
 */
public record UnitLag(String unit, Region to, long lagMs, Instant measuredAt, long changes) {

    /** The change count of a measurement that does not count changes. */
    public static final long UNKNOWN_CHANGES = -1;

    /** Requires every part and a lag of at least 0 (an unknown lag is an absent entry, never a value). */
    public UnitLag {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(measuredAt, "measuredAt");
        if (unit.isEmpty()) {
            throw new IllegalArgumentException("unit: '' (expected: a unit id)");
        }
        if (lagMs < 0) {
            throw new IllegalArgumentException("unit_lag." + unit + "." + to + ".lag_ms: " + lagMs
                                               + " (expected: >= 0; leave the entry out when unknown)");
        }
        if (changes < UNKNOWN_CHANGES) {
            throw new IllegalArgumentException("unit_lag." + unit + "." + to + ".changes: " + changes
                                               + " (expected: >= 0, or -1 when not counted)");
        }
    }

    /** A lag measured in time only, its changes not counted. */
    public UnitLag(String unit, Region to, long lagMs, Instant measuredAt) {
        this(unit, to, lagMs, measuredAt, UNKNOWN_CHANGES);
    }
}
