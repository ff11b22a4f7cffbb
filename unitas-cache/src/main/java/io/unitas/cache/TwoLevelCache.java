package io.unitas.cache;

/**
 * A cache of versioned values in two levels: L1 in memory (Caffeine, at most {@code maximumSize} entries) and L2 on
 * local disk (RocksDB, every entry, surviving restarts). Every entry carries the version of its data and the time
 * it was written; an entry older than the TTL is not served and is deleted from both levels, and an entry older
 * than the freshness bound is not served.
 *
 * <p>The levels are consistent in this sense: L2 holds every entry L1 holds, with the same version (L2 is written
 * first, L1 only copies from it under the key's lock), so L1 never holds a value L2 lacks or a newer one; an L1
 * eviction loses nothing, the next read finds the entry in L2. An {@link #invalidate invalidation} leaves a
 * tombstone with its version in L2, so a value older than the change cannot be {@link #put} afterwards.
 *
 * <pre>{@code
 * TwoLevelCache<String> users = TwoLevelCache.builder("users", ValueCodec.utf8())
 *         .directory(Path.of("/var/lib/shop/cache"))
 *         .maximumSize(100_000)
 *         .ttl(Duration.ofMinutes(10))
 *         .freshnessBound(Duration.ofSeconds(30)) // the data layer's readiness bound
 *         .build();
 * String name = users.get("u-42", key -> repository.findVersioned(key));
 * }</pre>
 */
public interface TwoLevelCache<V> extends InvalidationTarget, AutoCloseable {

    /** A builder of a cache named {@code name} (used in metrics) whose values {@code codec} writes to disk. */
    static <V> TwoLevelCacheBuilder<V> builder(String name, ValueCodec<V> codec) {
        return new TwoLevelCacheBuilder<>(name, codec);
    }

    /** This cache's name. */
    String name();

    /** The value of {@code key} if one fresh enough is held in either level, else null. */
    V getIfPresent(String key);

    /**
     * The value of {@code key}: from L1, else from L2, else from {@code loader}, whose answer is cached unless the
     * cache already holds a newer version (an invalidation arrived first; the loaded value is still returned). Null
     * when the loader has none. Concurrent misses of one key may each call the loader.
     */
    V get(String key, CacheLoader<V> loader);

    /**
     * Holds {@code value} at {@code version} for {@code key}, written now; false (nothing changed) when the cache
     * holds a newer version of the key, as a value or as an invalidation's tombstone.
     */
    boolean put(String key, V value, long version);

    /** Drops {@code key} if held at an older version than the invalidation's, else leaves it. */
    @Override
    InvalidationOutcome invalidate(Invalidation invalidation);

    /**
     * Removes {@code key} from both levels without a tombstone (any version may be put next): for a caller that
     * knows the key's value changed but not its version, such as Spring's {@code @CacheEvict}.
     */
    void evict(String key);

    /** Removes every entry and tombstone from both levels. */
    void clear();

    /** Deletes from disk every entry and tombstone older than the TTL; returns how many. */
    long purgeExpired();

    /** Flushes L2's write-ahead log to disk. */
    @Override
    void sync();

    /** Closes L2; the cache cannot be used afterwards, its directory can be opened again. */
    @Override
    void close();
}
