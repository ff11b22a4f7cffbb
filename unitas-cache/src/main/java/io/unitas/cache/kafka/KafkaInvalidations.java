package io.unitas.cache.kafka;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

import io.unitas.cache.InvalidationPublisher;
import io.unitas.cache.InvalidationTarget;
import io.unitas.cache.TwoLevelCache;

/**
 * Invalidations of a cache on Kafka. The events of cache {@code name} are on topic
 * {@code unitas.cache.<name>.invalidations}, keyed by cache key; those a consumer could not apply go to
 * {@code unitas.cache.<name>.invalidations.dead-letter}.
 *
 * <pre>{@code
 * KafkaInvalidations.ensureTopics("kafka:9092", "users", 4);
 * InvalidationPublisher publisher = KafkaInvalidations.publisher("kafka:9092", "users");
 * InvalidationConsumer consumer = KafkaInvalidations.consumer("kafka:9092", users)   // a TwoLevelCache
 *         .groupId("users-cache-" + hostName)   // one group per process: every process sees every event
 *         .build().start();
 * }</pre>
 */
public final class KafkaInvalidations {

    private KafkaInvalidations() {
    }

    /** The topic of cache {@code cacheName}'s invalidations. */
    public static String topic(String cacheName) {
        return "unitas.cache." + cacheName + ".invalidations";
    }

    /** The topic of the invalidations of cache {@code cacheName} that a consumer could not apply. */
    public static String deadLetterTopic(String cacheName) {
        return topic(cacheName) + ".dead-letter";
    }

    /** A publisher to cache {@code cacheName}'s topic; the caller closes it. */
    public static InvalidationPublisher publisher(String bootstrapServers, String cacheName) {
        return new KafkaInvalidationPublisher(Objects.requireNonNull(bootstrapServers, "bootstrapServers"),
                topic(cacheName));
    }

    /** A consumer applying cache {@code cache}'s topic to it. */
    public static InvalidationConsumerBuilder consumer(String bootstrapServers, TwoLevelCache<?> cache) {
        return new InvalidationConsumerBuilder(bootstrapServers, cache.name(), cache);
    }

    /** A consumer applying cache {@code cacheName}'s topic to {@code target} (several caches, a custom store). */
    public static InvalidationConsumerBuilder consumer(String bootstrapServers, String cacheName,
            InvalidationTarget target) {
        return new InvalidationConsumerBuilder(bootstrapServers, cacheName, target);
    }

    /**
     * Creates cache {@code cacheName}'s topic and dead-letter topic with {@code partitions} partitions and the
     * broker's default replication where they do not exist yet.
     */
    public static void ensureTopics(String bootstrapServers, String cacheName, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions: " + partitions + " (expected: >= 1)");
        }
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = List.of(topic(cacheName), deadLetterTopic(cacheName)).stream()
                    .filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, java.util.Optional.of(partitions), java.util.Optional.empty()))
                    .collect(Collectors.toList());
            if (!missing.isEmpty()) {
                admin.createTopics(missing).all().get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("cache '" + cacheName + "': interrupted creating its topics", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException) {
                return; // created by another process meanwhile
            }
            throw new IllegalStateException("cache '" + cacheName + "': cannot create topics " + topic(cacheName)
                    + " and its dead-letter topic at " + bootstrapServers + ": " + e.getCause(), e.getCause());
        }
    }
}
