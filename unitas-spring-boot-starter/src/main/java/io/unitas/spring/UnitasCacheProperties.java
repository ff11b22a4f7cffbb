package io.unitas.spring;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code unitas.cache.*}: a two-level cache ({@code unitas-cache}: Caffeine in memory, RocksDB on local disk) per
 * declared {@link UnitasEntity}, named by its type, as the application's Spring {@code CacheManager}
 * ({@code @Cacheable("wallet")}), kept true by invalidations on Kafka. Setting {@code directory} switches it on.
 *
 * <pre>
 * unitas:
 *   cache:
 *     directory: /var/lib/wallet/cache   # one RocksDB directory per entity type below it, kept across restarts
 *     maximum-size: 100000               # entries in memory, per cache
 *     ttl: 10m
 *     kafka:
 *       bootstrap-servers: kafka-1:9092  # default: unitas.replication.kafka.bootstrap-servers
 * </pre>
 */
@ConfigurationProperties(prefix = "unitas.cache")
public class UnitasCacheProperties {

    /** The directory of the caches' RocksDB files (one directory per entity type); unset: no cache. */
    private String directory;
    /** Entries each cache holds in memory (L1); every entry is on disk (L2). */
    private long maximumSize = 10_000;
    /** An entry older than this is deleted from both levels. */
    private Duration ttl = Duration.ofMinutes(10);
    /** An entry older than this is not served, for an entity that declares no staleness budget (which wins). */
    private Duration freshnessBound = Duration.ofSeconds(30);
    private final Kafka kafka = new Kafka();

    public String getDirectory() {
        return directory;
    }

    public void setDirectory(String directory) {
        this.directory = directory;
    }

    public long getMaximumSize() {
        return maximumSize;
    }

    public void setMaximumSize(long maximumSize) {
        this.maximumSize = maximumSize;
    }

    public Duration getTtl() {
        return ttl;
    }

    public void setTtl(Duration ttl) {
        this.ttl = ttl;
    }

    public Duration getFreshnessBound() {
        return freshnessBound;
    }

    public void setFreshnessBound(Duration freshnessBound) {
        this.freshnessBound = freshnessBound;
    }

    public Kafka getKafka() {
        return kafka;
    }

    /** {@code unitas.cache.kafka.*}: where the invalidations travel. */
    public static class Kafka {
        /** host:port[,host:port...]; default: unitas.replication.kafka.bootstrap-servers. */
        private String bootstrapServers;
        /** Partitions of each invalidation topic created. */
        private int partitions = 4;
        /**
         * This process's consumer group (its own, stable across restarts, so a restart replays from its committed
         * offset); default: unitas-cache-{region}-{host name}.
         */
        private String groupId;

        public String getBootstrapServers() {
            return bootstrapServers;
        }

        public void setBootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
        }

        public int getPartitions() {
            return partitions;
        }

        public void setPartitions(int partitions) {
            this.partitions = partitions;
        }

        public String getGroupId() {
            return groupId;
        }

        public void setGroupId(String groupId) {
            this.groupId = groupId;
        }
    }
}
