package io.unitas.spring;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.outbox.ChangeApplier;
import io.unitas.data.outbox.ChangeHandler;
import io.unitas.data.outbox.ChangeTransport;
import io.unitas.data.outbox.Outbox;
import io.unitas.data.outbox.OutboxShipper;
import io.unitas.data.outbox.ShipperStatus;
import io.unitas.data.outbox.StoppedStream;
import io.unitas.data.outbox.UnitLagReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * This region's replication, run with the application: the outbox in this region's database, the applier writing
 * other regions' changes with the {@link UnitasChangeHandler} beans, the transport {@code unitas.replication.transport}
 * names, and the shipper publishing the outbox on it. Started when the context is (the transport connects, the
 * receiving loop and the shipper start), stopped when it closes; {@link #status()} is its health.
 */
final class UnitasReplication implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(UnitasReplication.class);

    /** The transports there are. */
    enum Transport { EMBEDDED, KAFKA }

    private final UnitasReplicationProperties settings;
    private final Transport kind;
    private final Region region;
    private final List<Region> regions;
    private final DataSource dataSource;
    private final Outbox outbox;
    private final Supplier<List<UnitasChangeHandler>> handlerBeans;
    private final Supplier<Map<String, Region>> homes;
    private final Clock clock;
    private final MeterRegistry registry;
    private volatile Map<String, ChangeHandler> handlers = Map.of();
    private volatile ChangeApplier applier;
    private volatile ChangeTransport transport;
    private volatile OutboxShipper shipper;

    private UnitasReplication(UnitasReplicationProperties settings, Transport kind, Region region,
                              List<Region> regions, DataSource dataSource,
                              Supplier<List<UnitasChangeHandler>> handlerBeans, Supplier<Map<String, Region>> homes,
                              Clock clock, MeterRegistry registry) {
        this.settings = settings;
        this.homes = homes;
        this.kind = kind;
        this.region = region;
        this.regions = List.copyOf(regions);
        this.dataSource = dataSource;
        this.handlerBeans = handlerBeans;
        this.clock = clock;
        this.registry = registry;
        this.outbox = Outbox.jdbc(region, dataSource, clock); // migrates unitas's tables
    }

    /**
     * Checks {@code unitas.replication.*} against the topology and builds the outbox (nothing runs before
     * {@link #start()}). The handler beans are read when it starts: a handler often needs the repository that itself
     * needs the outbox.
     *
     * @throws UnitasConfigurationException with one line per problem, each naming its property or bean
     */
    static UnitasReplication create(UnitasReplicationProperties settings, String regionId, List<Region> topology,
                                    DataSource dataSource, Supplier<List<UnitasChangeHandler>> handlerBeans,
                                    Supplier<Map<String, Region>> homes, Clock clock, MeterRegistry registry) {
        List<String> problems = new ArrayList<>();
        Transport kind = transport(settings.getTransport(), problems);
        if (kind == Transport.KAFKA) {
            if (!KafkaReplicationTransport.onClassPath()) {
                problems.add("unitas.replication.transport: kafka, but kafka-clients is not on the class path"
                             + " (expected: the dependency org.apache.kafka:kafka-clients)");
            }
            String servers = settings.getKafka().getBootstrapServers();
            if (servers == null || servers.isBlank()) {
                problems.add("unitas.replication.kafka.bootstrap-servers: missing (expected: host:port[,host:port...]"
                             + " when unitas.replication.transport is kafka)");
            }
        }
        Region region = Region.of(regionId);
        List<Region> regions = new ArrayList<>();
        if (settings.getRegions().isEmpty()) {
            regions.addAll(topology);
        }
        for (int i = 0; i < settings.getRegions().size(); i++) {
            String id = settings.getRegions().get(i);
            Region r = topology.stream().filter(t -> t.id().equals(id)).findFirst().orElse(null);
            if (r == null) {
                problems.add("unitas.replication.regions[" + i + "]: '" + id + "' (expected: a region of the topology,"
                             + " one of " + topology + ")");
            } else if (!regions.contains(r)) {
                regions.add(r);
            }
        }
        if (!settings.getRegions().isEmpty() && !settings.getRegions().contains(regionId)) {
            problems.add("unitas.replication.regions: " + settings.getRegions() + " (expected: to include this"
                         + " region, unitas.region " + regionId + ")");
        }
        if (regions.size() < 2 && problems.isEmpty()) {
            problems.add("unitas.replication.regions: " + regions + " (expected: this region and at least one more)");
        }
        positive("unitas.replication.ship-interval", settings.getShipInterval(), problems);
        positive("unitas.replication.stale-after", settings.getStaleAfter(), problems);
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        return new UnitasReplication(settings, kind, region, regions, dataSource, handlerBeans, homes, clock,
                                     registry);
    }

    private static Transport transport(String name, List<String> problems) {
        for (Transport t : Transport.values()) {
            if (t.name().toLowerCase(Locale.ROOT).equals(name)) {
                return t;
            }
        }
        problems.add("unitas.replication.transport: '" + name + "' (expected: embedded or kafka)");
        return null;
    }

    private static void positive(String property, Duration value, List<String> problems) {
        if (value == null || value.isZero() || value.isNegative()) {
            problems.add(property + ": " + value + " (expected: > 0)");
        }
    }

    @Override
    public synchronized void start() {
        if (shipper != null) {
            return;
        }
        List<String> problems = new ArrayList<>();
        List<UnitasChangeHandler> declared = handlerBeans.get();
        Map<String, ChangeHandler> byType = UnitasChangeHandler.byType(declared, problems);
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        handlers = Map.copyOf(byType);
        if (applier == null) {
            // a change the old home had not shipped when its unit moved here is reconciled, never written over ours
            applier = ChangeApplier.jdbc(region, dataSource, handlers, clock, registry, homes,
                                         UnitasChangeHandler.reconcilers(declared));
        }
        ChangeTransport t = switch (kind) {
            case EMBEDDED -> EmbeddedGroups.join(settings.getEmbedded().getGroup(), regions, applier);
            case KAFKA -> KafkaReplicationTransport.start(settings.getKafka(), region, regions, applier, dataSource,
                                                          clock, registry, settings.getStaleAfter());
        };
        List<Region> targets = regions.stream().filter(r -> !r.equals(region)).toList();
        OutboxShipper s = OutboxShipper.create(outbox, t, targets, clock, registry, settings.getStaleAfter());
        s.start(settings.getShipInterval());
        transport = t;
        shipper = s;
        log.info("replication of region {}: {} transport to {}, shipping every {}, handlers for {}", region,
                 kind.name().toLowerCase(Locale.ROOT), targets, settings.getShipInterval(), handlers.keySet());
    }

    @Override
    public synchronized void stop() {
        OutboxShipper s = shipper;
        ChangeTransport t = transport;
        shipper = null;
        transport = null;
        if (s != null) {
            s.close();
        }
        if (t != null) {
            t.close();
        }
    }

    @Override
    public boolean isRunning() {
        return shipper != null;
    }

    /** The outbox the application appends to. */
    Outbox outbox() {
        return outbox;
    }

    /** The applier of other regions' changes, {@code null} before the first start. */
    ChangeApplier applier() {
        return applier;
    }

    /** The shipper, or {@code null} while stopped. */
    OutboxShipper shipper() {
        return shipper;
    }

    /** The lag of this region's units in the other regions, as of the last round. */
    UnitLagReport lag() {
        OutboxShipper s = shipper;
        return s == null ? UnitLagReport.empty(region, clock.instant()) : s.lag();
    }

    /**
     * Whether the shipper's rounds run and succeed, no stream of this region's units is stopped elsewhere, none of
     * another region's is stopped here, and the transport's loops run: every problem as one line.
     */
    ReplicationStatus status() {
        OutboxShipper s = shipper;
        ChangeTransport t = transport;
        List<String> problems = new ArrayList<>();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("region", region.id());
        details.put("transport", kind.name().toLowerCase(Locale.ROOT));
        details.put("handlers", List.copyOf(handlers.keySet()));
        if (s == null) {
            problems.add("replication of " + region + ": stopped");
        } else {
            ShipperStatus shipping = s.status();
            details.put("rounds", shipping.rounds());
            details.put("failedRounds", shipping.failures());
            details.put("lastRound", shipping.lastRound().toString());
            UnitLagReport lag = s.lag();
            Map<String, Object> byTarget = new LinkedHashMap<>();
            for (Region target : regions) {
                if (!target.equals(region)) { // before a round has shipped, nothing is known of the other copies
                    byTarget.put(target.id(), shipping.rounds() == 0 ? "unknown"
                                              : lag.maxLagMillis(lag.lagMillis().keySet(), target));
                }
            }
            details.put("maxLagMillis", byTarget); // of this region's units, per target, as of the last round
            if (!shipping.healthy()) {
                problems.add(shipping.reason());
            }
        }
        ChangeApplier a = applier;
        for (StoppedStream stopped : a == null ? List.<StoppedStream>of() : a.stopped()) {
            problems.add(stopped.describe());
        }
        if (t != null && kind == Transport.KAFKA) {
            String problem = KafkaReplicationTransport.problem(t);
            if (!problem.isEmpty()) {
                problems.add(problem);
            }
        }
        return new ReplicationStatus(problems.isEmpty(), problems.stream().distinct().toList(), details);
    }

    /** What {@link #status()} found: healthy when there is no problem. */
    record ReplicationStatus(boolean healthy, List<String> problems, Map<String, Object> details) {}

    @Override
    public String toString() {
        return "UnitasReplication{" + region + ", " + kind + '}';
    }
}
