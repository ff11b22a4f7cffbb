package io.unitas.spring;

import java.time.Clock;
import java.util.List;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.merge.MergeDigests;
import io.unitas.data.merge.OpenSiblings;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Merge on arrival for the entities declared with a merge policy, when replication is on: {@link UnitasMerge} (the
 * applier's handlers for those types, the service's writes in its transaction), open siblings as a reason in
 * {@code /actuator/health/unitas}, and {@code /actuator/siblings} to list and resolve them on record.
 */
@AutoConfiguration(after = UnitasReplicationAutoConfiguration.class)
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnClass(name = {"io.unitas.data.merge.MergeStore", "org.springframework.jdbc.datasource.DataSourceUtils"})
public class UnitasMergeAutoConfiguration {

    /** The merged entities of this region's database (built when first used). */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    @ConditionalOnMissingBean
    UnitasMerge unitasMerge(UnitasProperties properties, UnitasReplicationProperties settings, BeanFactory beans,
                            ObjectProvider<DataSource> dataSources, ObjectProvider<UnitasEntity<?>> entities,
                            ObjectProvider<UnitasOutbox> outbox, ObjectProvider<MeterRegistry> meters,
                            ObjectProvider<Clock> clock) {
        return new UnitasMerge(Region.of(properties.getRegion()),
                               UnitasReplicationAutoConfiguration.dataSource(settings, beans, dataSources),
                               () -> entities.orderedStream().toList(), outbox::getObject,
                               clock.getIfAvailable(Clock::systemUTC), meters.getIfAvailable(SimpleMeterRegistry::new));
    }

    /** Open siblings as a reason in {@code /actuator/health/unitas} (listed; the status stays). */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    UnitasHealthReasons unitasSiblingsReasons(UnitasMerge merge) {
        return () -> {
            if (merge.types().isEmpty()) {
                return List.of();
            }
            List<OpenSiblings> open;
            try {
                open = merge.openSiblings();
            } catch (RuntimeException e) {
                return List.of(new UnitasHealthReasons.Reason("siblings: cannot list: " + e.getMessage(),
                                                              UnitasHealthReasons.Effect.REPORT));
            }
            if (open.isEmpty()) {
                return List.of();
            }
            OpenSiblings oldest = open.get(0);
            return List.of(new UnitasHealthReasons.Reason(
                    "siblings: " + open.size() + " entit" + (open.size() == 1 ? "y" : "ies") + " in conflict in "
                    + merge.region() + ", oldest " + oldest.type() + " " + oldest.key() + " of unit " + oldest.unit()
                    + " since " + oldest.detectedAt() + " (expected: resolved on record at /actuator/siblings)",
                    UnitasHealthReasons.Effect.REPORT));
        };
    }

    /** This region's copy of the merged entities, served by its home-read server to the others' reconciliation. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    HomeReadServing.MergeCopy unitasMergeCopy(UnitasMerge merge) {
        return server -> {
            if (!merge.types().isEmpty()) {
                server.mergeCopy(MergeDigests.postgres(merge.dataSource()), merge.types());
            }
        };
    }

    /**
     * Reconciliation by digests of the merged entities against their homes' copies, read from the homes' home-read
     * servers ({@code unitas.reconciliation.*}); its findings a reason in {@code /actuator/health/unitas}.
     */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    @ConditionalOnMissingBean
    UnitasReconciliation unitasReconciliation(UnitasProperties properties, UnitasRoutingState state,
                                              UnitasMerge merge, ObjectProvider<HomeReadPeers> peers,
                                              ObjectProvider<MeterRegistry> meters, ObjectProvider<Clock> clock) {
        return new UnitasReconciliation(properties, state, merge, () -> {
            HomeReadPeers p = peers.getIfAvailable();
            return p == null ? null : p.client();
        }, meters.getIfAvailable(SimpleMeterRegistry::new), clock.getIfAvailable(Clock::systemUTC));
    }

    /** {@code /actuator/siblings}: the open conflicts, and an operator's audited resolution. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean
        SiblingsEndpoint unitasSiblingsEndpoint(UnitasMerge merge) {
            return new SiblingsEndpoint(merge);
        }
    }
}
