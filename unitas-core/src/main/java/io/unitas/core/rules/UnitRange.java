package io.unitas.core.rules;

import java.util.Objects;

/**
 * One line of a rule set's range table: the keys of {@code range} belong to unit {@code unit}.
 *
 * @param range the inclusive key range
 * @param unit  the id of the unit that owns it
 */
public record UnitRange(KeyRange range, String unit) {

    /** Both parts are required. */
    public UnitRange {
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(unit, "unit");
    }

    /** {@code 0~1999 -> u-cn}. */
    @Override
    public String toString() {
        return range + " -> " + unit;
    }
}
