package io.unitas.spring;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The starter's health components on Spring Boot 4, whose health API moved to {@code org.springframework.boot.health}
 * ({@code spring-boot-health}): {@code unitasRegion} (this region's health in the routing state, shown alone by the
 * {@code unitas} group, {@code /actuator/health/unitas}), {@code unitasHomeReads}
 * (the home-read server) and {@code unitasReplication} (shipper and applier), answering as their Boot 3 twins in
 * {@link UnitasActuatorAutoConfiguration} and {@link UnitasReplicationAutoConfiguration} do. On Boot 3 this class is
 * left out (its health classes are not there), and on Boot 4 those are.
 */
@AutoConfiguration(after = {UnitasAutoConfiguration.class, UnitasDataAutoConfiguration.class,
                            UnitasReplicationAutoConfiguration.class})
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class UnitasBoot4HealthAutoConfiguration {

    /**
     * {@code unitasRegion} (Boot 4 refuses a component named as the {@code unitas} group that shows it): UP while this
     * region is healthy in the routing state, OUT_OF_SERVICE while it is down, worse when a {@link UnitasHealthReasons}
     * bean gates (open conflicts, the consistency gate), as {@link UnitasHealthIndicator} on Boot 3.
     */
    @Bean(name = "unitasRegionHealthIndicator")
    @ConditionalOnMissingBean(name = "unitasRegionHealthIndicator")
    HealthIndicator unitasHealthIndicator(UnitasProperties properties, UnitasRoutingState state,
                                          ObjectProvider<UnitasHealthReasons> reasons) {
        Region region = Region.of(properties.getRegion());
        return () -> {
            RegionHealth h = state.current().health().get(region);
            UnitasHealthReasons.Verdict v = UnitasHealthReasons.Verdict.of(h, reasons.orderedStream().toList());
            Health.Builder b = switch (v.effect()) {
                case REPORT -> Health.up();
                case OUT_OF_SERVICE -> Health.outOfService();
                case DOWN -> Health.down();
            };
            b.withDetail("region", region.id()).withDetail("writable", h.writable());
            return v.reasons().isEmpty() ? b.build() : b.withDetail("reasons", v.reasons()).build();
        };
    }

    /** {@code /actuator/health/unitas} reachable without {@code show-components}: a group of that name. */
    @Bean
    @ConditionalOnBean(name = "unitasRegionHealthIndicator")
    @ConditionalOnClass(name = "org.springframework.boot.health.actuate.endpoint.HealthEndpointGroupsPostProcessor")
    static UnitasBoot4HealthGroup unitasBoot4HealthGroup() {
        return new UnitasBoot4HealthGroup();
    }

    /** {@code unitasHomeReads}: UP while this region's home-read server serves, DOWN once stopped. */
    @Bean(name = "unitasHomeReadsHealthIndicator")
    @ConditionalOnBean(HomeReadServing.class)
    @ConditionalOnMissingBean(name = "unitasHomeReadsHealthIndicator")
    HealthIndicator unitasHomeReadsHealthIndicator(HomeReadServing serving,
                                                   ObjectProvider<HomeReadPeers> peers) {
        return () -> {
            HomeReadPeers.Status compared = peers.getIfAvailable(() -> new HomeReadPeers(null)).status();
            Health.Builder b = !serving.isRunning() ? Health.down().withDetail("reason", "stopped")
                    : !compared.mismatches().isEmpty() ? Health.down().withDetail("reason", compared.mismatches())
                    : Health.up().withDetail("uri", String.valueOf(serving.uri()))
                            .withDetail("entities", serving.types())
                            .withDetail("idempotency", serving.servesIdempotency());
            return compared.notCompared().isEmpty() ? b.build()
                    : b.withDetail("peersNotCompared", compared.notCompared()).build();
        };
    }

    /** {@code unitasReplication}: DOWN with every problem, one line each. */
    @Bean(name = "unitasReplicationHealthIndicator")
    @ConditionalOnBean(UnitasReplication.class)
    @ConditionalOnMissingBean(name = "unitasReplicationHealthIndicator")
    HealthIndicator unitasReplicationHealthIndicator(UnitasReplication replication) {
        return () -> {
            UnitasReplication.ReplicationStatus status = replication.status();
            Health.Builder b = status.healthy() ? Health.up()
                                                : Health.down().withDetail("problems", status.problems());
            return b.withDetails(status.details()).build();
        };
    }
}
