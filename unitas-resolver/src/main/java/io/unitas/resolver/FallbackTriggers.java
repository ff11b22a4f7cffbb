package io.unitas.resolver;

import java.time.Duration;

/**
 * When a client stops waiting for DNS and uses its fallback pool (seed 003, 2.5): a query slower than
 * {@code slowerThan}, or {@code failuresInARow} answers in a row that were NXDOMAIN or SERVFAIL. It goes back to
 * DNS as soon as DNS answers again; while on the pool it asks DNS again every {@code retryEvery}.
 *
 * @param slowerThan a query still unanswered after this switches to the pool (the seed: 800 ms)
 * @param failuresInARow NXDOMAIN or SERVFAIL answers in a row that switch to the pool (the seed: 3)
 * @param retryEvery how often DNS is asked again while on the pool
 */
public record FallbackTriggers(Duration slowerThan, int failuresInARow, Duration retryEvery) {

    /** The seed's triggers: 800 ms, or 3 failures in a row; DNS asked again every second. */
    public static final FallbackTriggers DEFAULT =
            new FallbackTriggers(Duration.ofMillis(800), 3, Duration.ofSeconds(1));

    /** Validates the triggers. */
    public FallbackTriggers {
        if (slowerThan == null || slowerThan.isNegative() || slowerThan.isZero()) {
            throw new IllegalArgumentException("slowerThan: " + slowerThan + " (expected: > 0s)");
        }
        if (failuresInARow < 1) {
            throw new IllegalArgumentException("failuresInARow: " + failuresInARow + " (expected: >= 1)");
        }
        if (retryEvery == null || retryEvery.isNegative() || retryEvery.isZero()) {
            throw new IllegalArgumentException("retryEvery: " + retryEvery + " (expected: > 0s)");
        }
    }
}
