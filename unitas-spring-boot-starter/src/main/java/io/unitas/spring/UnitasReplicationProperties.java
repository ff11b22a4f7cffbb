package io.unitas.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code unitas.replication.*}: how this region's changes reach the other regions and theirs reach this one. Setting
 * {@code transport} switches replication on; everything else has a default.
 *
 * <pre>
 * unitas:
 *   replication:
 *     transport: kafka                 # or embedded: every region in this one JVM (tests, demos)
 *     regions: [eu, us]                # the regions that replicate; default: every region of the topology
 *     kafka:
 *       bootstrap-servers: kafka-1:9092,kafka-2:9092
 * </pre>
 */
@ConfigurationProperties(prefix = "unitas.replication")
public class UnitasReplicationProperties {

    /** {@code embedded} (every region in this JVM) or {@code kafka}; unset: no replication. */
    private String transport;
    /** The name of the DataSource bean of this region's database; default: the application's only DataSource. */
    private String dataSource;
    /** The regions that replicate, this one included; default: every region of the topology. */
    private List<String> regions = new ArrayList<>();
    /** How often the shipper reads the outbox and publishes what is new. */
    private Duration shipInterval = Duration.ofMillis(100);
    /** A shipper without a successful round for longer than this is reported stalled (health DOWN). */
    private Duration staleAfter = Duration.ofSeconds(30);
    private final Embedded embedded = new Embedded();
    private final Kafka kafka = new Kafka();

    public String getTransport() {
        return transport;
    }

    public void setTransport(String transport) {
        this.transport = transport;
    }

    public String getDataSource() {
        return dataSource;
    }

    public void setDataSource(String dataSource) {
        this.dataSource = dataSource;
    }

    public List<String> getRegions() {
        return regions;
    }

    public void setRegions(List<String> regions) {
        this.regions = regions;
    }

    public Duration getShipInterval() {
        return shipInterval;
    }

    public void setShipInterval(Duration shipInterval) {
        this.shipInterval = shipInterval;
    }

    public Duration getStaleAfter() {
        return staleAfter;
    }

    public void setStaleAfter(Duration staleAfter) {
        this.staleAfter = staleAfter;
    }

    public Embedded getEmbedded() {
        return embedded;
    }

    public Kafka getKafka() {
        return kafka;
    }

    /** {@code unitas.replication.embedded.*}: regions of one JVM, joined by the name of their group. */
    public static class Embedded {
        /** Regions of this JVM with the same group exchange changes; another group is another set of regions. */
        private String group = "default";

        public String getGroup() {
            return group;
        }

        public void setGroup(String group) {
            this.group = group;
        }
    }

    /** {@code unitas.replication.kafka.*}: the Kafka transport's settings. */
    public static class Kafka {
        /** host:port[,host:port...] of the cluster holding the changes topics. */
        private String bootstrapServers;
        /** The prefix of every topic's name. */
        private String topicPrefix = "unitas.";
        /** Partitions of each changes topic the transport creates. */
        private int partitions = 8;
        /** Replicas of each topic the transport creates (3 on a production cluster). */
        private int replicationFactor = 1;
        /** Kafka client properties added to the transport's own (security settings, for instance). */
        private Map<String, String> properties = new LinkedHashMap<>();

        public String getBootstrapServers() {
            return bootstrapServers;
        }

        public void setBootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
        }

        public String getTopicPrefix() {
            return topicPrefix;
        }

        public void setTopicPrefix(String topicPrefix) {
            this.topicPrefix = topicPrefix;
        }

        public int getPartitions() {
            return partitions;
        }

        public void setPartitions(int partitions) {
            this.partitions = partitions;
        }

        public int getReplicationFactor() {
            return replicationFactor;
        }

        public void setReplicationFactor(int replicationFactor) {
            this.replicationFactor = replicationFactor;
        }

        public Map<String, String> getProperties() {
            return properties;
        }

        public void setProperties(Map<String, String> properties) {
            this.properties = properties;
        }
    }
}
