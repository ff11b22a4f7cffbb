package io.unitas.cache.spring;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToLongFunction;

import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

import io.unitas.cache.TwoLevelCache;

/**
 * A Spring {@link CacheManager} over a fixed set of {@link TwoLevelCache}s, so {@code @Cacheable("users")} reads
 * through the cache named {@code users}. Keys are the cache key's {@code String.valueOf}; each value is put at the
 * version {@code versionOf} reads from it (the entity's data version, the one its invalidations carry), so an
 * invalidation from another region drops what {@code @Cacheable} cached. Null results are not cached.
 *
 * <pre>{@code
 * @Bean
 * CacheManager cacheManager(TwoLevelCache<User> users) {
 *     return TwoLevelCacheManager.builder().cache(users, User.class, User::version).build();
 * }
 * }</pre>
 */
public final class TwoLevelCacheManager implements CacheManager {

    private final Map<String, Cache> caches;

    private TwoLevelCacheManager(Map<String, Cache> caches) {
        this.caches = Map.copyOf(caches);
    }

    /** A builder with no caches yet. */
    public static Builder builder() {
        return new Builder();
    }

    /** The cache named {@code name}, or null: this manager does not create caches on demand. */
    @Override
    public Cache getCache(String name) {
        return caches.get(name);
    }

    @Override
    public Collection<String> getCacheNames() {
        return List.copyOf(caches.keySet());
    }

    /** Collects the caches of a {@link TwoLevelCacheManager}. */
    public static final class Builder {

        private final Map<String, Cache> caches = new LinkedHashMap<>();

        private Builder() {
        }

        /** Adds {@code cache}, whose values are of {@code type} and at the version {@code versionOf} reads. */
        public <V> Builder cache(TwoLevelCache<V> cache, Class<V> type, ToLongFunction<? super V> versionOf) {
            Objects.requireNonNull(cache, "cache");
            if (caches.containsKey(cache.name())) {
                throw new IllegalArgumentException("cache '" + cache.name() + "': added twice (expected: one cache "
                        + "per name)");
            }
            caches.put(cache.name(), new SpringTwoLevelCache<>(cache, Objects.requireNonNull(type, "type"),
                    Objects.requireNonNull(versionOf, "versionOf")));
            return this;
        }

        /** The manager; refuses an empty one. */
        public TwoLevelCacheManager build() {
            if (caches.isEmpty()) {
                throw new IllegalStateException("TwoLevelCacheManager: no caches (expected: at least one, added with "
                        + "cache(...))");
            }
            return new TwoLevelCacheManager(caches);
        }
    }
}
