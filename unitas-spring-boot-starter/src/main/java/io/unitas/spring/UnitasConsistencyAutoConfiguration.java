package io.unitas.spring;

import java.time.Clock;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * The declared staleness budgets at run time: each entity's budget from the consistency contract
 * ({@code unitas.consistency.declarations}) or its bean ({@link UnitasBudgets}, for the caches too), and, when
 * replication is on, {@link UnitasConsistency}'s gauges and its reason in {@code /actuator/health/unitas}
 * ({@code unitas.consistency.gate}).
 */
@AutoConfiguration(after = UnitasReplicationAutoConfiguration.class,
                   afterName = {"org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
                                "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnClass(name = "io.unitas.data.outbox.Outbox")
@EnableConfigurationProperties(UnitasConsistencyProperties.class)
public class UnitasConsistencyAutoConfiguration {

    /** Every entity bean's budget, from the contract file or the bean; a file that is wrong or disagrees stops the start. */
    @Bean
    UnitasBudgets unitasBudgets(UnitasConsistencyProperties settings, ResourceLoader loader,
                                ObjectProvider<UnitasEntity<?>> entities) {
        return new UnitasBudgets(UnitasBudgets.read(loader, settings.getDeclarations()),
                                 () -> entities.orderedStream().toList());
    }

    /** The lag of every entity with a budget, against it; its gauges registered once the context's beans exist. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    @ConditionalOnBean(UnitasReplication.class)
    UnitasConsistency unitasConsistency(UnitasReplication replication, UnitasBudgets budgets,
                                        UnitasConsistencyProperties settings, ObjectProvider<Clock> clock,
                                        ObjectProvider<MeterRegistry> meters) {
        return new UnitasConsistency(replication, budgets, settings.getGate(),
                                     clock.getIfAvailable(Clock::systemUTC),
                                     meters.getIfAvailable(SimpleMeterRegistry::new));
    }
}
