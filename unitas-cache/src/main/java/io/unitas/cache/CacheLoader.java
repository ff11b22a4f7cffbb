package io.unitas.cache;

/**
 * Reads a key's value from where it lives (the data layer, usually through data readiness) for a read-through
 * {@link TwoLevelCache#get(String, CacheLoader)}.
 */
@FunctionalInterface
public interface CacheLoader<V> {

    /** The value of {@code key} with its version, or null when there is none (a miss is not cached). */
    Versioned<V> load(String key);
}
