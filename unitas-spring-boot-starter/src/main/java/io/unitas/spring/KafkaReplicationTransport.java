package io.unitas.spring;

import java.util.List;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.kafka.KafkaTransport;
import io.unitas.data.kafka.KafkaTransportStatus;
import io.unitas.data.outbox.ChangeApplier;
import java.time.Clock;
import java.time.Duration;

/** Builds and starts the Kafka transport of {@code unitas.replication.kafka.*}; loaded only when it is chosen. */
final class KafkaReplicationTransport {

    private KafkaReplicationTransport() {}

    static boolean onClassPath() {
        return org.springframework.util.ClassUtils.isPresent("org.apache.kafka.clients.producer.KafkaProducer",
                                                             KafkaReplicationTransport.class.getClassLoader());
    }

    /**
     * The transport of {@code region}, receiving into {@code applier}, its topics created and its receiving loop
     * started.
     *
     * @throws UnitasConfigurationException naming the property when a setting is out of range or Kafka cannot be
     *                                      reached to create the topics
     */
    static KafkaTransport start(UnitasReplicationProperties.Kafka settings, Region region, List<Region> regions,
                                ChangeApplier applier, DataSource dataSource, Clock clock, MeterRegistry registry,
                                Duration staleAfter) {
        KafkaTransport transport;
        try {
            transport = KafkaTransport.builder(region, settings.getBootstrapServers()).regions(regions)
                    .receiver(applier, dataSource).topicPrefix(settings.getTopicPrefix())
                    .partitions(settings.getPartitions()).replicationFactor(settings.getReplicationFactor())
                    .clientProperties(settings.getProperties()).clock(clock).registry(registry)
                    .staleAfter(staleAfter).build();
        } catch (IllegalArgumentException e) {
            throw new UnitasConfigurationException(List.of("unitas.replication.kafka: " + e.getMessage()));
        } catch (IllegalStateException e) {
            throw new UnitasConfigurationException(List.of("unitas.replication.kafka.bootstrap-servers: '"
                    + settings.getBootstrapServers() + "': " + e.getMessage()));
        }
        transport.start();
        return transport;
    }

    /** The transport's problem now, empty when its loops run and pass. */
    static String problem(Object transport) {
        KafkaTransportStatus status = ((KafkaTransport) transport).status();
        return status.healthy() ? "" : status.reason();
    }
}
