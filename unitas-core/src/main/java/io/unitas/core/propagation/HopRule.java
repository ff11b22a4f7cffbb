package io.unitas.core.propagation;

/**
 * Decides what a gateway does with a request given the routing stamp it arrived with: route it (no stamp),
 * honour the stamp without routing again (a decision made by another unitas gateway: no ping-pong), or stop a
 * loop once the request has passed {@link #limit()} gateways (HTTP 508).
 *
 * @param limit the most gateways a request may pass; at least 1
 */
public record HopRule(int limit) {

    /** What to do with a request. */
    public enum Verdict {
        /** No stamp: route it from its routing key. */
        ROUTE,
        /** Stamped by another unitas gateway: send it to the stamped region without routing again. */
        PREROUTED,
        /** It has passed the hop limit: answer 508 Loop Detected. */
        LOOP
    }

    /** The limit used when none is configured: origin gateway, one failover hop, and one spare. */
    public static final int DEFAULT_LIMIT = 3;

    /** Validates the limit. */
    public HopRule {
        if (limit < 1) {
            throw new IllegalArgumentException("hop_limit: " + limit + " (expected: >= 1)");
        }
    }

    /** The rule with {@link #DEFAULT_LIMIT}. */
    public static HopRule standard() {
        return new HopRule(DEFAULT_LIMIT);
    }

    /**
     * Judges a request that carries {@code stampedRegion} (null or empty when it has no stamp) and has passed
     * {@code hops} gateways before this one (a missing or malformed count is 0: a stamp without a count is
     * still a stamp).
     */
    public Verdict judge(String stampedRegion, int hops) {
        if (hops >= limit) {
            return Verdict.LOOP;
        }
        return stampedRegion == null || stampedRegion.isEmpty() ? Verdict.ROUTE : Verdict.PREROUTED;
    }

    /** Parses a hop count header value: a small non-negative decimal, anything else (or null) is 0. */
    public static int parseHops(String value) {
        if (value == null || value.isEmpty() || value.length() > 4) {
            return 0;
        }
        int n = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                return 0;
            }
            n = n * 10 + (c - '0');
        }
        return n;
    }
}
