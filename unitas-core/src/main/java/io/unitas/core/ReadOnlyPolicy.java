package io.unitas.core;

import java.util.Locale;

/**
 * What happens to a write whose serving region is healthy but read-only ({@link RegionHealth#writable()} false, as
 * a database demoted to a standby): reads keep being served there either way.
 */
public enum ReadOnlyPolicy {
    /** The write is refused with a retryable answer until the region takes writes again. */
    FENCE,
    /**
     * The write goes to the next admitted, writable region of the home's fallback list: for data whose layer lets
     * another region take the unit's writes (a multi-primary store, or data merged by policy).
     */
    FAILOVER;

    /** The lowercase name used in files ({@code fence}, {@code failover}). */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The policy named {@code name} as {@link #jsonName()} writes it.
     *
     * @throws IllegalArgumentException naming what was expected
     */
    public static ReadOnlyPolicy fromJson(String name) {
        for (ReadOnlyPolicy p : values()) {
            if (p.jsonName().equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("'" + name + "' (expected: fence or failover)");
    }
}
