package io.unitas.spring;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.unitas.cache.Invalidation;
import io.unitas.cache.InvalidationPublisher;
import io.unitas.cache.TwoLevelCache;
import io.unitas.cache.ValueCodec;
import io.unitas.cache.kafka.ConsumerState;
import io.unitas.cache.kafka.InvalidationConsumer;
import io.unitas.cache.kafka.KafkaInvalidations;
import io.unitas.cache.spring.TwoLevelCacheManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.context.SmartLifecycle;

/**
 * The starter's two-level caches, one per declared {@link UnitasEntity} (named by its type): the application's
 * {@link CacheManager}; an invalidation ({@code key}, the entity's version, now) published on the cache's Kafka topic
 * for every change the data layer makes or applies here ({@link UnitasChangeListener}), and applied to this process's
 * cache at once; one consumer per cache applying every region's invalidations; each entry served only within the
 * entity's staleness budget ({@code unitas.cache.freshness-bound} when it declares none). A consumer that stopped is a
 * reason in {@code /actuator/health/unitas}.
 */
final class UnitasCaches implements CacheManager, SmartLifecycle, UnitasChangeListener, UnitasHealthReasons {

    private static final Logger log = LoggerFactory.getLogger(UnitasCaches.class);

    private final UnitasCacheProperties settings;
    private final String bootstrapServers;
    private final String groupId;
    private final Supplier<List<UnitasEntity<?>>> entities;
    private final UnitasBudgets budgets;
    private final Clock clock;
    private final MeterRegistry registry;
    private final Counter publishFailures;
    private volatile Built built;
    private volatile List<InvalidationConsumer> consumers = List.of();
    private volatile boolean stopped;

    private record Cached(UnitasEntity<Object> entity, TwoLevelCache<Object> cache, InvalidationPublisher publisher) {}

    private record Built(Map<String, Cached> byType, TwoLevelCacheManager manager) {}

    UnitasCaches(UnitasCacheProperties settings, String bootstrapServers, String groupId,
                 Supplier<List<UnitasEntity<?>>> entities, UnitasBudgets budgets, Clock clock,
                 MeterRegistry registry) {
        this.settings = settings;
        this.bootstrapServers = bootstrapServers;
        this.groupId = groupId;
        this.entities = entities;
        this.budgets = budgets;
        this.clock = clock;
        this.registry = registry;
        this.publishFailures = Counter.builder("unitas.cache.invalidations.publish.failed")
                .description("invalidations the data layer could not publish (entries elsewhere stay until their"
                             + " freshness bound)")
                .register(registry);
    }

    @Override
    public Cache getCache(String name) {
        return built().manager == null ? null : built().manager.getCache(name);
    }

    @Override
    public Collection<String> getCacheNames() {
        return built().byType.keySet();
    }

    // Built on first use or at start, whichever comes first: the entity beans may need beans that need this manager.
    @SuppressWarnings("unchecked")
    private Built built() {
        Built b = built;
        if (b == null) {
            synchronized (this) {
                b = built;
                if (b == null) {
                    Map<String, Cached> byType = new LinkedHashMap<>();
                    Map<String, Duration> budgets = this.budgets.byType();
                    TwoLevelCacheManager.Builder manager = TwoLevelCacheManager.builder();
                    for (UnitasEntity<?> declared : entities.get()) {
                        UnitasEntity<Object> entity = (UnitasEntity<Object>) declared;
                        if (byType.containsKey(entity.type())) {
                            continue;
                        }
                        Duration fresh = budgets.getOrDefault(entity.type(), settings.getFreshnessBound());
                        TwoLevelCache<Object> cache = TwoLevelCache.builder(entity.type(), codec(entity))
                                .directory(Path.of(settings.getDirectory()).resolve(entity.type()))
                                .maximumSize(settings.getMaximumSize())
                                .ttl(settings.getTtl())
                                .freshnessBound(fresh)
                                .clock(clock)
                                .meterRegistry(registry)
                                .build();
                        KafkaInvalidations.ensureTopics(bootstrapServers, entity.type(),
                                                        settings.getKafka().getPartitions());
                        byType.put(entity.type(), new Cached(entity, cache,
                                KafkaInvalidations.publisher(bootstrapServers, entity.type())));
                        manager.cache(cache, Object.class, entity::version);
                        log.info("cache '{}': {} in memory, every entry on disk under {}, served within {}",
                                 entity.type(), settings.getMaximumSize(), settings.getDirectory(), fresh);
                    }
                    b = new Built(Map.copyOf(byType), byType.isEmpty() ? null : manager.build());
                    built = b;
                }
            }
        }
        return b;
    }

    private static ValueCodec<Object> codec(UnitasEntity<Object> entity) {
        return new ValueCodec<>() {
            @Override
            public byte[] encode(Object value) {
                return entity.encode(value);
            }

            @Override
            public Object decode(byte[] bytes) {
                return entity.decode(bytes);
            }
        };
    }

    @Override
    public void changed(String entityType, String key, byte[] payload) {
        if (stopped) {
            return; // closing: the applier may still run, the caches must not open again
        }
        Cached c = built().byType.get(entityType);
        if (c == null) {
            return;
        }
        Invalidation invalidation;
        try {
            invalidation = new Invalidation(key, c.entity.version(c.entity.decode(payload)), clock.instant());
        } catch (RuntimeException e) {
            log.warn("cache '{}': change of {} not decoded, nothing invalidated: {}", entityType, key, e.toString());
            publishFailures.increment();
            return;
        }
        c.cache.invalidate(invalidation); // this process at once; the others through Kafka
        c.publisher.publish(invalidation).whenComplete((ok, failure) -> {
            if (failure != null) {
                publishFailures.increment();
                log.warn("cache '{}': invalidation of {} at version {} not published: {}", entityType, key,
                         invalidation.version(), failure.toString());
            }
        });
    }

    @Override
    public synchronized void start() {
        if (!consumers.isEmpty()) {
            return;
        }
        stopped = false;
        List<InvalidationConsumer> started = new ArrayList<>();
        for (Cached c : built().byType.values()) {
            started.add(KafkaInvalidations.consumer(bootstrapServers, c.cache)
                                          .groupId(groupId + "-" + c.entity.type())
                                          .clock(clock)
                                          .meterRegistry(registry)
                                          .build()
                                          .start());
        }
        consumers = List.copyOf(started);
    }

    @Override
    public synchronized void stop() {
        stopped = true;
        consumers.forEach(InvalidationConsumer::close);
        consumers = List.of();
        Built b = built;
        if (b != null) {
            for (Cached c : b.byType.values()) {
                c.publisher.close();
                c.cache.close();
            }
            built = null;
        }
    }

    @Override
    public boolean isRunning() {
        return !consumers.isEmpty();
    }

    @Override
    public List<Reason> reasons() {
        List<Reason> reasons = new ArrayList<>();
        for (InvalidationConsumer consumer : consumers) {
            ConsumerState state = consumer.state();
            if (!state.running()) {
                reasons.add(new Reason("cache: an invalidation consumer stopped: " + state.failure()
                                       + " (expected: running; entries stay until their freshness bound)",
                                       Effect.REPORT));
            }
        }
        return reasons;
    }

    @Override
    public String toString() {
        Built b = built;
        return "UnitasCaches{" + (b == null ? "not built" : b.byType.keySet()) + '}';
    }
}
