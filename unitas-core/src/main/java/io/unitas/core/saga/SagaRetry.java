package io.unitas.core.saga;

import java.time.Duration;

/**
 * How often and how soon a failed execution or compensation is tried again: up to {@code maxAttempts} attempts,
 * the n-th retry after {@code initial × 2^(n-1)}, capped at {@code max}.
 */
public record SagaRetry(int maxAttempts, Duration initial, Duration max) {

    /** Five attempts, 100 ms, 200 ms, 400 ms, 800 ms apart. */
    public static final SagaRetry DEFAULT = new SagaRetry(5, Duration.ofMillis(100), Duration.ofSeconds(10));

    /** Checks the parts. */
    public SagaRetry {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts: " + maxAttempts + " (expected: >= 1)");
        }
        if (initial == null || initial.isNegative()) {
            throw new IllegalArgumentException("initial: " + initial + " (expected: >= 0)");
        }
        if (max == null || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("max: " + max + " (expected: >= initial " + initial + ")");
        }
    }

    /** The wait before attempt number {@code attempt} (0 is the first attempt: no wait). */
    public Duration delay(int attempt) {
        if (attempt <= 0) {
            return Duration.ZERO;
        }
        int shift = Math.min(attempt - 1, 30);
        long millis = initial.toMillis() << shift;
        return millis < 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
