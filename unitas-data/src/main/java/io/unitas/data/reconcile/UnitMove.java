package io.unitas.data.reconcile;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Objects;

/**
 * A unit's home changing, as the region's data layer saw it: by a switchover (its lag drained first) or a promotion
 * (whatever its old home had not shipped stays there).
 *
 * @param unit the unit
 * @param from its home before
 * @param to   its home after
 * @param at   when the move was seen
 */
public record UnitMove(String unit, Region from, Region to, Instant at) {

    /** Requires every part and two different regions. */
    public UnitMove {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(at, "at");
        if (from.equals(to)) {
            throw new IllegalArgumentException("move of " + unit + ": from " + from + " to " + to
                                               + " (expected: two different regions)");
        }
    }
}
