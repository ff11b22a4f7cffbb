package io.unitas.core.health;

/**
 * The DNS TTL of a region's answers, shrunk as its health score falls so that clients re-resolve sooner when a
 * region degrades (seed 003): {@code max(30, floor(base × (0.3 + 0.7 × score)))} seconds. The floor of 30 s keeps
 * a sick region from causing a storm of queries.
 */
public final class DynamicTtl {

    /** The smallest TTL ever returned, in seconds. */
    public static final long FLOOR_SECONDS = 30;

    private DynamicTtl() {}

    /** The TTL in seconds for a region of health {@code score} (0 to 1) whose full TTL is {@code baseSeconds}. */
    public static long seconds(long baseSeconds, double score) {
        if (baseSeconds < 0) {
            throw new IllegalArgumentException("base: " + baseSeconds + " (expected: >= 0)");
        }
        if (!(score >= 0.0 && score <= 1.0)) {
            throw new IllegalArgumentException("score: " + score + " (expected: 0 <= score <= 1)");
        }
        return Math.max(FLOOR_SECONDS, (long) Math.floor(baseSeconds * (0.3 + 0.7 * score)));
    }
}
