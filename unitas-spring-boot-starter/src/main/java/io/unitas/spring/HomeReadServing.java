package io.unitas.spring;

import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.core.rules.Unit;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.remote.HomeReadServer;

/**
 * This region's home-read server, run with the application: started when the context is, stopped (connections cut)
 * when it closes. It serves the {@link UnitasEntity} beans and this region's idempotency records to the other
 * regions, for the units this region owns by the live unit map of {@link UnitasRoutingState}.
 */
final class HomeReadServing implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(HomeReadServing.class);

    private final UnitasProperties properties;
    private final UnitasRoutingState state;
    private final List<UnitasEntity<?>> entities;
    private final IdempotencyStore idempotency;
    private final MeterRegistry meters;
    private final Clock clock;
    private final java.util.function.Supplier<MergeCopy> merge;
    private volatile HomeReadServer server;

    HomeReadServing(UnitasProperties properties, UnitasRoutingState state, List<UnitasEntity<?>> entities,
                    IdempotencyStore idempotency, MeterRegistry meters, Clock clock,
                    java.util.function.Supplier<MergeCopy> merge) {
        this.properties = properties;
        this.state = state;
        this.entities = List.copyOf(entities);
        this.idempotency = idempotency;
        this.meters = meters;
        this.clock = clock;
        this.merge = merge;
    }

    /**
     * This region's copy of the merged entities, served to the other regions' reconciliation when there are some (a
     * bean of the merge configuration, so that this class needs no JDBC on the class path).
     */
    @FunctionalInterface
    interface MergeCopy {
        /** Adds the copy to the server being built, if there is one to serve. */
        void serve(HomeReadServer.Builder server);
    }

    /** Whether unit {@code unitId}'s home is this region now, by the routing state in force. */
    static boolean owns(UnitasRoutingState state, Region region, String unitId) {
        Unit unit = state.current().rules().unit(unitId);
        return unit != null && unit.home().equals(region);
    }

    @Override
    public void start() {
        UnitasProperties.HomeReadServer settings = properties.getReadiness().getHomeReads().getServer();
        Region region = Region.of(properties.getRegion());
        HomeReadServer.Builder b = HomeReadServer.builder().region(region)
                .owns(unit -> owns(state, region, unit))
                .token(RepositoryReadiness.token(properties))
                .requestTimeout(settings.getRequestTimeout())
                .blockingThreads(settings.getBlockingThreads());
        if (meters != null) {
            b.meterRegistry(meters);
        }
        entities.forEach(e -> b.reader(e.type(), e.codecId(), e.reader(clock)));
        if (idempotency != null) {
            b.idempotency(idempotency);
        }
        MergeCopy copy = merge.get();
        if (copy != null) { // the other regions' reconciliation reads this copy of the units homed here
            copy.serve(b);
        }
        if (settings.getTlsCert() != null) {
            b.tls(Path.of(settings.getTlsCert()), Path.of(settings.getTlsKey()));
        }
        if (settings.getClientCa() != null) {
            if (settings.getTlsCert() == null) {
                throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.server.client-ca: '"
                        + settings.getClientCa() + "' without tls-cert and tls-key (expected: those too: client"
                        + " certificates are checked in the TLS handshake)"));
            }
            b.clientCa(Path.of(settings.getClientCa()));
        }
        if (settings.isAllowPlaintext()) {
            b.allowPlaintext();
        }
        try {
            b.listen(settings.getHost(), settings.getPort());
            server = b.start();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.server: " + e.getMessage()));
        }
        log.info("home-read server of region {} on {}: entity types {}{}", region, server.uri(),
                 entities.stream().map(UnitasEntity::type).toList(),
                 idempotency == null ? "" : ", and this region's idempotency records");
    }

    @Override
    public void stop() {
        HomeReadServer running = server;
        server = null;
        if (running != null) {
            running.close();
        }
    }

    @Override
    public boolean isRunning() {
        return server != null;
    }

    /** Where it listens, or {@code null} while stopped. */
    URI uri() {
        HomeReadServer running = server;
        return running == null ? null : running.uri();
    }

    /** The entity types it serves. */
    List<String> types() {
        return entities.stream().map(UnitasEntity::type).toList();
    }

    /** Whether it serves this region's idempotency records. */
    boolean servesIdempotency() {
        return idempotency != null;
    }
}
