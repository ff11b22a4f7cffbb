package io.unitas.core.capacity;

import java.util.Objects;
import java.util.OptionalDouble;

import io.unitas.core.Region;

/**
 * The load one region would carry, against its capacity.
 *
 * @param region   the region
 * @param load     the total load routed or placed there
 * @param capacity the region's capacity, empty when unlimited
 */
public record RegionLoad(Region region, double load, OptionalDouble capacity) {

    /** Validates the parts. */
    public RegionLoad {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(capacity, "capacity");
    }

    /** Whether the region has a capacity and carries more than it. */
    public boolean overloaded() {
        return capacity.isPresent() && load > capacity.getAsDouble();
    }
}
