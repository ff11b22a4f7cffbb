package io.unitas.data.outbox;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * cn, eu and us, each its own database with the ledger's schema and unitas's tables, an outbox, an applier and a
 * shipper, joined by one in-process transport, on one controlled clock. Each region meters into its own registry, as
 * each region's process would.
 */
final class ThreeRegions implements AutoCloseable {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");
    static final Region US = Region.of("us");
    static final List<Region> ALL = List.of(CN, EU, US);

    final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    final InProcessTransport transport;
    final Map<Region, DataSource> db = new LinkedHashMap<>();
    final Map<Region, Outbox> outbox = new LinkedHashMap<>();
    final Map<Region, ChangeApplier> applier = new LinkedHashMap<>();
    final Map<Region, OutboxShipper> shipper = new LinkedHashMap<>();
    final Map<Region, SimpleMeterRegistry> meters = new LinkedHashMap<>();
    private final Databases databases;

    ThreeRegions(Databases databases) {
        this(databases, InProcessTransport.DEFAULT_CAPACITY);
    }

    ThreeRegions(Databases databases, int linkCapacity) {
        this.databases = databases;
        this.transport = InProcessTransport.create(linkCapacity);
        for (Region region : ALL) {
            DataSource ds = databases.newDatabase(region.id());
            Ledger.createSchema(ds);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            db.put(region, ds);
            meters.put(region, registry);
            outbox.put(region, Outbox.jdbc(region, ds, clock));
            applier.put(region, ChangeApplier.jdbc(region, ds, Map.of(Ledger.ENTRY, Ledger.HANDLER), clock, registry));
            transport.receiver(applier.get(region));
        }
        for (Region region : ALL) {
            List<Region> others = ALL.stream().filter(r -> !r.equals(region)).toList();
            shipper.put(region, OutboxShipper.create(outbox.get(region), transport, others, clock,
                                                     meters.get(region), Duration.ofSeconds(30)));
        }
    }

    Ledger ledger(Region region) {
        return new Ledger(db.get(region), outbox.get(region));
    }

    /** One shipping round in every region. */
    void shipDue() {
        shipper.values().forEach(OutboxShipper::shipDue);
    }

    /** The value of the gauge {@code name} with {@code tags} in {@code region}'s registry. */
    double gauge(Region region, String name, String... tags) {
        return meters.get(region).get(name).tags(tags).gauge().value();
    }

    @Override
    public void close() {
        shipper.values().forEach(OutboxShipper::close);
        transport.close();
        databases.close();
    }
}
