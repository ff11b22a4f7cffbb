package io.unitas.spring;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.client.RoutingSnapshot;
import io.unitas.core.Region;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Replication, switched on by {@code unitas.replication.transport}: the {@link UnitasOutbox} the service appends its
 * changes to in its own transaction, and {@link UnitasReplication} (the shipper on the chosen transport, the applier
 * calling the {@link UnitasChangeHandler} beans), started and stopped with the application, its health the
 * {@code unitasReplication} component. Its meters go to the application's {@link MeterRegistry}.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class,
                   afterName = {"org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
                                "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
                                "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
                                "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnClass(name = {"io.unitas.data.outbox.Outbox", "org.springframework.jdbc.datasource.DataSourceUtils"})
@EnableConfigurationProperties(UnitasReplicationProperties.class)
public class UnitasReplicationAutoConfiguration {

    /** This region's replication, checked against the topology; its handler beans are read when it starts. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    UnitasReplication unitasReplication(UnitasReplicationProperties settings, UnitasProperties properties,
                                        UnitasRoutingState state, BeanFactory beans,
                                        ObjectProvider<DataSource> dataSources,
                                        ObjectProvider<UnitasChangeHandler> handlers,
                                        ObjectProvider<UnitasMerge> merged,
                                        ObjectProvider<UnitasChangeListener> listeners,
                                        ObjectProvider<MeterRegistry> meters, ObjectProvider<Clock> clock) {
        DataSource dataSource = dataSource(settings, beans, dataSources);
        return UnitasReplication.create(settings, properties.getRegion(),
                                        state.current().rules().topology().regions(), dataSource,
                                        () -> handlers(handlers, merged, listeners), homes(state),
                                        clock.getIfAvailable(Clock::systemUTC),
                                        meters.getIfAvailable(SimpleMeterRegistry::new));
    }

    // The live unit-to-region map, built again only when the routing state changes.
    private static Supplier<Map<String, Region>> homes(UnitasRoutingState state) {
        AtomicReference<Map.Entry<RoutingSnapshot, Map<String, Region>>> last = new AtomicReference<>();
        return () -> {
            RoutingSnapshot now = state.current();
            Map.Entry<RoutingSnapshot, Map<String, Region>> seen = last.get();
            if (seen == null || seen.getKey() != now) {
                Map<String, Region> homes = new HashMap<>();
                now.rules().units().forEach(u -> homes.put(u.id(), u.home()));
                seen = Map.entry(now, Map.copyOf(homes));
                last.set(seen);
            }
            return seen.getValue();
        };
    }

    // The handler beans, and the merge on arrival of every entity declared with a merge policy.
    // The listeners hear of each applied change in the applier's transaction: an invalidation may reach a cache before
    // the commit, which is safe because it leaves a tombstone at the change's version that an older read cannot pass.
    private static List<UnitasChangeHandler> handlers(ObjectProvider<UnitasChangeHandler> beans,
                                                      ObjectProvider<UnitasMerge> merged,
                                                      ObjectProvider<UnitasChangeListener> listeners) {
        List<UnitasChangeHandler> all = new java.util.ArrayList<>(beans.orderedStream().toList());
        UnitasMerge merge = merged.getIfAvailable();
        if (merge != null) { // a merge is order-free: a change that crossed a move is merged as any other
            merge.handlers().forEach((type, handler) -> all.add(UnitasChangeHandler.of(type, handler).reconciledBy(
                    (tx, change, move) -> handler.apply(tx, change))));
        }
        List<UnitasChangeListener> told = listeners.orderedStream().toList();
        if (told.isEmpty()) {
            return all;
        }
        return all.stream().map(h -> h.andThen((tx, change) -> told.forEach(
                l -> l.changed(change.entityType(), change.key(), change.payload())))).toList();
    }

    /** What the service appends its changes to, in its own transaction. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    @ConditionalOnMissingBean
    UnitasOutbox unitasOutbox(UnitasReplication replication, UnitasReplicationProperties settings,
                              UnitasRoutingState state, BeanFactory beans, ObjectProvider<DataSource> dataSources,
                              ObjectProvider<UnitasChangeListener> listeners) {
        String name = settings.getDataSource() != null ? "DataSource '" + settings.getDataSource() + "'"
                                                       : "the application's DataSource";
        return new UnitasOutbox(replication.outbox(), dataSource(settings, beans, dataSources), name, state,
                                () -> listeners.orderedStream().toList());
    }

    /** The DataSource bean {@code unitas.replication.data-source} names, or the application's only one. */
    static DataSource dataSource(UnitasReplicationProperties settings, BeanFactory beans,
                                 ObjectProvider<DataSource> dataSources) {
        String name = settings.getDataSource();
        if (name != null) {
            try {
                return beans.getBean(name, DataSource.class);
            } catch (NoSuchBeanDefinitionException e) {
                throw new UnitasConfigurationException(List.of("unitas.replication.data-source: '" + name
                        + "' (expected: the name of a DataSource bean" + names(beans) + ")"));
            }
        }
        DataSource only = dataSources.getIfUnique();
        if (only == null) {
            throw new UnitasConfigurationException(List.of("unitas.replication.data-source: missing (expected: the"
                    + " name of the DataSource bean of this region's database, or exactly one DataSource in the"
                    + " application" + names(beans) + ")"));
        }
        return only;
    }

    private static String names(BeanFactory beans) {
        if (beans instanceof DefaultListableBeanFactory listable) {
            Map<String, DataSource> all = listable.getBeansOfType(DataSource.class, false, false);
            return all.isEmpty() ? "; there is none" : "; there are " + all.keySet();
        }
        return "";
    }

    /** {@code /actuator/health/unitasReplication}: DOWN with every problem, one line each. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @ConditionalOnProperty(prefix = "unitas.replication", name = "transport")
    static class Health {
        @Bean(name = "unitasReplicationHealthIndicator")
        @ConditionalOnMissingBean(name = "unitasReplicationHealthIndicator")
        org.springframework.boot.actuate.health.HealthIndicator unitasReplicationHealthIndicator(
                UnitasReplication replication) {
            return () -> {
                UnitasReplication.ReplicationStatus status = replication.status();
                org.springframework.boot.actuate.health.Health.Builder b = status.healthy()
                        ? org.springframework.boot.actuate.health.Health.up()
                        : org.springframework.boot.actuate.health.Health.down()
                                .withDetail("problems", status.problems());
                return b.withDetails(status.details()).build();
            };
        }
    }
}
