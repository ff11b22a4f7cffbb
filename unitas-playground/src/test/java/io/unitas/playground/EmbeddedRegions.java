package io.unitas.playground;

import io.unitas.core.Region;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.data.IdempotencyStore;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Three embedded regions, cn, eu and us, on one fake clock, closed after each test. Register with
 * {@code @RegisterExtension final EmbeddedRegions regions = new EmbeddedRegions();}.
 */
public final class EmbeddedRegions implements AfterEachCallback {

    public static final Region CN = Region.of("cn");
    public static final Region EU = Region.of("eu");
    public static final Region US = Region.of("us");

    public final FakeClock clock = new FakeClock();
    public final RegionalStore cn = RegionalStore.embedded(CN, clock);
    public final RegionalStore eu = RegionalStore.embedded(EU, clock);
    public final RegionalStore us = RegionalStore.embedded(US, clock);
    public final StoreDirectory stores = StoreDirectory.of(cn, eu, us);

    /** The stores as the idempotency of the data layer reaches them, by region. */
    public Function<Region, Optional<IdempotencyStore>> idempotencyStores() {
        return region -> stores.store(region).map(s -> s);
    }

    /** The three stores, in the global order cn, eu, us. */
    public List<RegionalStore> all() {
        return List.of(cn, eu, us);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        all().forEach(RegionalStore::close);
    }
}
