package io.unitas.cache;

import java.time.Instant;
import java.util.Objects;

/**
 * A change of {@code key} to {@code version}, made or applied at {@code timestamp}: a cache holding an older version
 * of the key drops it; a cache holding this version or a newer one ignores the event.
 *
 * @param key the cache key of the changed data
 * @param version the version the change produced
 * @param timestamp when the change was made or applied (for logs and lag, not for ordering: versions order)
 */
public record Invalidation(String key, long version, Instant timestamp) {

    /** Checks the key and timestamp are present. */
    public Invalidation {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(timestamp, "timestamp");
    }
}
