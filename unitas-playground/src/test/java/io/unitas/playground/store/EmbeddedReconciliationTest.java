package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.playground.FakeClock;

/** {@link ReconciliationContract} on the embedded store. */
class EmbeddedReconciliationTest extends ReconciliationContract {

    @Override
    RegionalStore newStore(Region region, FakeClock clock) {
        return RegionalStore.embedded(region, clock);
    }
}
