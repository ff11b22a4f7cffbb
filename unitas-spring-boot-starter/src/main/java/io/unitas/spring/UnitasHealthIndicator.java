package io.unitas.spring;

import java.util.List;
import java.util.function.Supplier;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * The actuator's {@code unitas} health component, from the routing state the service follows: {@code UP} while this
 * instance's region is healthy there, {@code OUT_OF_SERVICE} (503) while the control plane or the health file has it
 * down, so the readiness probe ({@code management.endpoint.health.group.readiness.include: readinessState,unitas})
 * takes the instance out exactly when the gateways stop sending it work. The same answer as {@link UnitasGrpcHealth}.
 * The {@link UnitasHealthReasons} beans add their reasons (detail {@code reasons}); one that gates sets the status
 * when it is worse.
 */
final class UnitasHealthIndicator implements HealthIndicator {

    private final UnitasRoutingState state;
    private final Region region;
    private final Supplier<List<UnitasHealthReasons>> sources;

    UnitasHealthIndicator(UnitasRoutingState state, String region) {
        this(state, region, List::of);
    }

    UnitasHealthIndicator(UnitasRoutingState state, String region, Supplier<List<UnitasHealthReasons>> sources) {
        this.state = state;
        this.region = Region.of(region);
        this.sources = sources;
    }

    @Override
    public Health health() {
        RegionHealth h = state.current().health().get(region);
        UnitasHealthReasons.Verdict v = UnitasHealthReasons.Verdict.of(h, sources.get());
        Status status = switch (v.effect()) {
            case REPORT -> Status.UP;
            case OUT_OF_SERVICE -> Status.OUT_OF_SERVICE;
            case DOWN -> Status.DOWN;
        };
        Health.Builder b = Health.status(status).withDetail("region", region.id()).withDetail("writable",
                                                                                            h.writable());
        return v.reasons().isEmpty() ? b.build() : b.withDetail("reasons", v.reasons()).build();
    }
}
