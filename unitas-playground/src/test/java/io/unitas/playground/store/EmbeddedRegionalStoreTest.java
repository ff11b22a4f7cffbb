package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.playground.FakeClock;

/** The store contract on the embedded default, an in-memory H2 database per store. */
class EmbeddedRegionalStoreTest extends RegionalStoreContract {

    @Override
    RegionalStore newStore(Region region, FakeClock clock) {
        return RegionalStore.embedded(region, clock);
    }
}
