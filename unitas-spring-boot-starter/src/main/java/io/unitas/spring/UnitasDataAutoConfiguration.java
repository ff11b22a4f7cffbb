package io.unitas.spring;

import java.time.Clock;
import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * The data plane: {@link UnitasReadiness}, the repositories' reads that fall back to the home region, when the data
 * layer is present; the other regions' home-read servers it reads from (and idempotency claims at them); this
 * region's home-read server; and the answer to a {@link DataNotReadyException} thrown from a controller. Home reads
 * configured without Armeria on the class path stop the start naming the dependency ({@link HomeReadLibraries}).
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnClass(name = "io.unitas.data.DataReadiness")
public class UnitasDataAutoConfiguration {
    /**
     * Connects to the peers at start and compares the {@link UnitasEntity} beans with what they serve; closes its
     * client's connections when the application stops.
     */
    @Bean
    HomeReadPeers unitasHomeReadPeers(UnitasProperties properties,
                                      ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters,
                                      ObjectProvider<UnitasEntity<?>> entities, ResourceLoader resources) {
        HomeReadLibraries.check(properties, resources.getClassLoader());
        return new HomeReadPeers(RepositoryReadiness.homeReads(properties, meters.getIfAvailable()),
                                 properties.getRegion(), () -> entities.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    UnitasReadiness unitasReadiness(UnitasProperties properties, UnitasRoutingState state, HomeReadPeers peers) {
        return new RepositoryReadiness(properties, state, peers.client());
    }

    /**
     * This region's home-read server, when {@code unitas.readiness.home-reads.server.port} is set: the
     * {@link UnitasEntity} beans and this region's idempotency records, served to the other regions.
     */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.readiness.home-reads.server", name = "port")
    HomeReadServing unitasHomeReadServing(UnitasProperties properties, UnitasRoutingState state,
                                          ObjectProvider<UnitasEntity<?>> entities,
                                          ObjectProvider<IdempotencySetup> idempotency,
                                          ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters,
                                          ObjectProvider<Clock> clock,
                                          ObjectProvider<HomeReadServing.MergeCopy> merge,
                                          ResourceLoader resources) {
        HomeReadLibraries.check(properties, resources.getClassLoader());
        List<UnitasEntity<?>> declared = entities.orderedStream().toList();
        IdempotencySetup setup = idempotency.getIfAvailable();
        io.unitas.data.IdempotencyStore local = setup == null ? null : setup.local();
        if (declared.isEmpty() && local == null) {
            throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.server.port: "
                    + properties.getReadiness().getHomeReads().getServer().getPort() + ", but nothing to serve"
                    + " (expected: UnitasEntity beans, or idempotency with a store of this region)"));
        }
        java.util.Set<String> types = new java.util.HashSet<>();
        for (UnitasEntity<?> entity : declared) {
            if (!types.add(entity.type())) {
                throw new UnitasConfigurationException(List.of("UnitasEntity '" + entity.type()
                        + "': declared twice (expected: one bean per entity type)"));
            }
        }
        return new HomeReadServing(properties, state, declared, local, meters.getIfAvailable(),
                                   clock.getIfAvailable(Clock::systemUTC), merge::getIfAvailable);
    }

    @Bean
    @ConditionalOnWebApplication
    DataNotReadyAdvice unitasDataNotReadyAdvice() {
        return new DataNotReadyAdvice();
    }
}
