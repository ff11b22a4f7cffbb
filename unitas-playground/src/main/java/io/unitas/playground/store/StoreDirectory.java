package io.unitas.playground.store;

import io.unitas.core.Region;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How this process reaches each region's store: in-process for the embedded regions and tests, over the network
 * (a {@link RegionalStore} that calls the home region) in a real deployment.
 */
@FunctionalInterface
public interface StoreDirectory {

    /** A directory of stores held in this process, one per region. */
    static StoreDirectory of(RegionalStore... stores) {
        Map<Region, RegionalStore> byRegion = new LinkedHashMap<>();
        for (RegionalStore store : stores) {
            if (byRegion.put(store.region(), store) != null) {
                throw new IllegalArgumentException("stores: two for region " + store.region()
                                                   + " (expected: one per region)");
            }
        }
        Map<Region, RegionalStore> frozen = Map.copyOf(byRegion);
        return region -> Optional.ofNullable(frozen.get(region));
    }

    /** The store of {@code region}, empty when this process has no way to reach it. */
    Optional<RegionalStore> store(Region region);
}
