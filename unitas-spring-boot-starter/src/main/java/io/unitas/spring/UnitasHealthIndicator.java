package io.unitas.spring;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The actuator's {@code unitas} health component, from the routing state the service follows: {@code UP} while this
 * instance's region is healthy there, {@code OUT_OF_SERVICE} (503) while the control plane or the health file has it
 * down, so the readiness probe ({@code management.endpoint.health.group.readiness.include: readinessState,unitas})
 * takes the instance out exactly when the gateways stop sending it work. The same answer as {@link UnitasGrpcHealth}.
 */
final class UnitasHealthIndicator implements HealthIndicator {

    private final UnitasRoutingState state;
    private final Region region;

    UnitasHealthIndicator(UnitasRoutingState state, String region) {
        this.state = state;
        this.region = Region.of(region);
    }

    @Override
    public Health health() {
        RegionHealth h = state.current().health().get(region);
        Health.Builder b = h.healthy() ? Health.up() : Health.outOfService();
        return b.withDetail("region", region.id()).withDetail("writable", h.writable()).build();
    }
}
