package io.unitas.core.health;

/**
 * The DNS TTL of a region's answers, shrunk as its health score falls so that clients re-resolve sooner when a
 * region degrades (seed 003): {@code max(30, floor(base × (0.3 + 0.7 × score)))} seconds. The floor of 30 s (the
 * seed's; another can be given) keeps a sick region from causing a storm of queries.
 */
public final class DynamicTtl {

    /** The smallest TTL ever returned, in seconds. */
    public static final long FLOOR_SECONDS = 30;

    private DynamicTtl() {}

    /** The TTL in seconds for a region of health {@code score} (0 to 1) whose full TTL is {@code baseSeconds}. */
    public static long seconds(long baseSeconds, double score) {
        return seconds(baseSeconds, FLOOR_SECONDS, score);
    }

    /**
     * As {@link #seconds(long, double)} with the floor {@code minSeconds} instead of the seed's 30 s:
     * {@code max(min, floor(base × (0.3 + 0.7 × score)))}.
     */
    public static long seconds(long baseSeconds, long minSeconds, double score) {
        if (baseSeconds < 0) {
            throw new IllegalArgumentException("base: " + baseSeconds + " (expected: >= 0)");
        }
        if (minSeconds < 0) {
            throw new IllegalArgumentException("min: " + minSeconds + " (expected: >= 0)");
        }
        if (!(score >= 0.0 && score <= 1.0)) {
            throw new IllegalArgumentException("score: " + score + " (expected: 0 <= score <= 1)");
        }
        return Math.max(minSeconds, (long) Math.floor(baseSeconds * (0.3 + 0.7 * score)));
    }
}
