package io.unitas.spring;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The two-level cache, switched on by {@code unitas.cache.directory} when {@code unitas-cache} and
 * {@code kafka-clients} are on the class path: {@link UnitasCaches}, the application's {@code CacheManager} (before
 * Boot's own, which then backs off), told of every change the data layer makes or applies.
 */
@AutoConfiguration(after = {UnitasAutoConfiguration.class, UnitasConsistencyAutoConfiguration.class},
                   beforeName = {"org.springframework.boot.autoconfigure.cache.CacheAutoConfiguration",
                                 "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration"},
                   afterName = {"org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
                                "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration"})
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnClass(name = {"io.unitas.cache.TwoLevelCache", "io.unitas.cache.spring.TwoLevelCacheManager",
                            "org.apache.kafka.clients.producer.KafkaProducer",
                            "org.springframework.cache.CacheManager"})
@EnableConfigurationProperties({UnitasCacheProperties.class, UnitasReplicationProperties.class})
public class UnitasCacheAutoConfiguration {

    /** A cache per declared entity, checked here: every problem as one line naming its property. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.cache", name = "directory")
    UnitasCaches cacheManager(UnitasCacheProperties settings, UnitasReplicationProperties replication,
                              UnitasProperties properties, ObjectProvider<UnitasEntity<?>> entities,
                              ObjectProvider<UnitasBudgets> budgets, ObjectProvider<Clock> clock, ObjectProvider<MeterRegistry> meters) {
        List<String> problems = new ArrayList<>();
        String servers = settings.getKafka().getBootstrapServers();
        if (servers == null || servers.isBlank()) {
            servers = replication.getKafka().getBootstrapServers();
        }
        if (servers == null || servers.isBlank()) {
            problems.add("unitas.cache.kafka.bootstrap-servers: missing (expected: host:port[,host:port...], or"
                         + " unitas.replication.kafka.bootstrap-servers)");
        }
        if (settings.getMaximumSize() < 0) {
            problems.add("unitas.cache.maximum-size: " + settings.getMaximumSize() + " (expected: >= 0)");
        }
        if (settings.getTtl() == null || settings.getTtl().isZero() || settings.getTtl().isNegative()) {
            problems.add("unitas.cache.ttl: " + settings.getTtl() + " (expected: > 0)");
        }
        if (settings.getFreshnessBound() == null || settings.getFreshnessBound().isZero()
            || settings.getFreshnessBound().isNegative()) {
            problems.add("unitas.cache.freshness-bound: " + settings.getFreshnessBound() + " (expected: > 0)");
        }
        if (settings.getKafka().getPartitions() < 1) {
            problems.add("unitas.cache.kafka.partitions: " + settings.getKafka().getPartitions()
                         + " (expected: >= 1)");
        }
        if (!problems.isEmpty()) {
            throw new UnitasConfigurationException(problems);
        }
        String group = settings.getKafka().getGroupId();
        if (group == null || group.isBlank()) {
            group = "unitas-cache-" + properties.getRegion() + "-" + host();
        }
        Supplier<List<UnitasEntity<?>>> declared = () -> entities.orderedStream().toList();
        return new UnitasCaches(settings, servers, group, declared,
                                budgets.getIfAvailable(() -> new UnitasBudgets(Map.of(), declared)),
                                clock.getIfAvailable(Clock::systemUTC),
                                meters.getIfAvailable(SimpleMeterRegistry::new));
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
