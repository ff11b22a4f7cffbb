package io.unitas.cache;

import java.util.Objects;

/**
 * A value with the version of the data it was read from, as a {@link CacheLoader} returns it. Versions grow with
 * every change of a key (a row version, an outbox sequence, a commit timestamp); the cache compares them to refuse
 * older values and to ignore older invalidations.
 *
 * @param value the value, never null
 * @param version the version of the data the value was read from
 */
public record Versioned<V>(V value, long version) {

    /** Checks the value is present. */
    public Versioned {
        Objects.requireNonNull(value, "value");
    }
}
