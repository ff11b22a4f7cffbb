package io.unitas.core.consistency;

import java.util.List;
import java.util.Objects;

import io.unitas.core.Region;

/**
 * A compliance boundary: the regions a unit's or entity's data may be placed in ({@code eu-personal-data: [eu, eu2]}).
 *
 * @param name    the group's name
 * @param regions the regions it allows
 * @param where   where it is declared
 */
public record ResidencyGroup(String name, List<Region> regions, Location where) {

    /** Requires every part; copies the list. */
    public ResidencyGroup {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(where, "where");
        regions = List.copyOf(regions);
    }

    /** Whether data of this group may be placed in {@code region}. */
    public boolean allows(Region region) {
        return regions.contains(region);
    }

    /** {@code name: [eu, eu2]}, as messages quote it. */
    @Override
    public String toString() {
        return name + ": " + regions;
    }
}
