package io.unitas.cache;

/** What an {@link Invalidation} did to a cache. */
public enum InvalidationOutcome {
    /** The cache held an older version of the key, or nothing: the key now misses until a newer value is put. */
    APPLIED,
    /** The cache already held the invalidation's version or a newer one: nothing changed. */
    STALE
}
