package io.unitas.core.capacity;

import java.util.List;
import java.util.Objects;

import io.unitas.core.Region;

/**
 * The load every region of a topology would carry, in topology order, and the load that reaches no region
 * (users of an unknown home region or without a healthy region).
 *
 * @param regions  one entry per region of the topology, in its listed order
 * @param unplaced the load that no region serves
 */
public record LoadPlan(List<RegionLoad> regions, double unplaced) {

    /** Freezes {@code regions}. */
    public LoadPlan {
        regions = List.copyOf(Objects.requireNonNull(regions, "regions"));
    }

    /** The regions that carry more than their capacity, in topology order. */
    public List<Region> overloaded() {
        return regions.stream().filter(RegionLoad::overloaded).map(RegionLoad::region).toList();
    }

    /** Whether no region carries more than its capacity. */
    public boolean fits() {
        return regions.stream().noneMatch(RegionLoad::overloaded);
    }

    /** The entry of {@code region}. */
    public RegionLoad of(Region region) {
        for (RegionLoad r : regions) {
            if (r.region().equals(region)) {
                return r;
            }
        }
        throw new IllegalArgumentException("region: " + region + " (expected: one of " + regions.stream()
                .map(r -> r.region().id()).toList() + ")");
    }
}
