package io.unitas.spring;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator: {@code /actuator/unitas} (the routing state the service sees) and the {@code unitas} health contributor,
 * reachable as {@code /actuator/health/unitas} without {@code show-components}.
 */
@AutoConfiguration(after = {UnitasAutoConfiguration.class, UnitasDataAutoConfiguration.class})
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
public class UnitasActuatorAutoConfiguration {
    @Bean
    @ConditionalOnMissingBean
    RoutingStateEndpoint unitasRoutingStateEndpoint(UnitasProperties properties, UnitasRoutingState state,
                                                    ObjectProvider<UnitasStateSection> sections) {
        return new RoutingStateEndpoint(properties, state, () -> sections.orderedStream().toList());
    }

    /** {@code /actuator/health/unitas}: this region's health as the gateways see it (Boot 3's health API). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    static class HealthComponent {
        @Bean(name = "unitasHealthIndicator")
        @ConditionalOnMissingBean(name = "unitasHealthIndicator")
        UnitasHealthIndicator unitasHealthIndicator(UnitasProperties properties, UnitasRoutingState state,
                                                    ObjectProvider<UnitasHealthReasons> reasons) {
            return new UnitasHealthIndicator(state, properties.getRegion(), () -> reasons.orderedStream().toList());
        }

        /** {@code /actuator/health/unitas} reachable without {@code show-components}: a group of that name. */
        @Bean
        @ConditionalOnBean(name = "unitasHealthIndicator")
        static UnitasHealthGroup unitasHealthGroup() {
            return new UnitasHealthGroup();
        }

        /** {@code /actuator/health/unitasHomeReads}: this region's home-read server, up while it serves. */
        @Bean(name = "unitasHomeReadsHealthIndicator")
        @ConditionalOnBean(HomeReadServing.class)
        @ConditionalOnMissingBean(name = "unitasHomeReadsHealthIndicator")
        org.springframework.boot.actuate.health.HealthIndicator unitasHomeReadsHealthIndicator(
                HomeReadServing serving, org.springframework.beans.factory.ObjectProvider<HomeReadPeers> peers) {
            return () -> {
                HomeReadPeers.Status compared = peers.getIfAvailable(() -> new HomeReadPeers(null)).status();
                org.springframework.boot.actuate.health.Health.Builder b = !serving.isRunning()
                        ? org.springframework.boot.actuate.health.Health.down().withDetail("reason", "stopped")
                        : !compared.mismatches().isEmpty()
                        ? org.springframework.boot.actuate.health.Health.down()
                                .withDetail("reason", compared.mismatches())
                        : org.springframework.boot.actuate.health.Health.up()
                                .withDetail("uri", String.valueOf(serving.uri()))
                                .withDetail("entities", serving.types())
                                .withDetail("idempotency", serving.servesIdempotency());
                return compared.notCompared().isEmpty() ? b.build()
                        : b.withDetail("peersNotCompared", compared.notCompared()).build();
            };
        }
    }
}
