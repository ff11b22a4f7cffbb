package io.unitas.control.client;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter: retry {@code n} waits between half and all of {@code first × 2^(n-1)}, capped
 * at {@code longest}, so that the gateways a control-plane restart dropped do not all come back in one instant.
 */
record Backoff(Duration first, Duration longest) {

    /** The delay before retry number {@code attempt} (1 for the first), drawn with {@code random}. */
    Duration delay(int attempt, RandomGenerator random) {
        long ceiling = ceiling(attempt).toNanos();
        long half = ceiling / 2;
        return Duration.ofNanos(half + (long) (random.nextDouble() * (ceiling - half)));
    }

    /** The largest delay retry {@code attempt} can draw. */
    Duration ceiling(int attempt) {
        int doublings = Math.min(Math.max(0, attempt - 1), 30);
        long nanos = first.toNanos();
        for (int i = 0; i < doublings && nanos < longest.toNanos(); i++) {
            nanos *= 2;
        }
        return Duration.ofNanos(Math.min(nanos, longest.toNanos()));
    }
}
