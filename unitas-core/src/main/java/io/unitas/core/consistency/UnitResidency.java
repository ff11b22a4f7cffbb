package io.unitas.core.consistency;

import java.util.Objects;

/**
 * A unit's residency: every user of {@code unit} keeps their data in the regions of the group {@code group}.
 *
 * @param unit  the unit's id, as the unit rules name it
 * @param group the residency group's name
 * @param where where it is declared
 */
public record UnitResidency(String unit, String group, Location where) {

    /** Requires every part. */
    public UnitResidency {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(where, "where");
    }
}
