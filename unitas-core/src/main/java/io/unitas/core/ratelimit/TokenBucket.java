package io.unitas.core.ratelimit;

import java.util.function.LongSupplier;

/**
 * A token bucket: holds up to {@code capacity} tokens, refills at a steady rate, and admits one unit of work per
 * token. Time comes from an injected nanosecond ticker, so tests move time instead of sleeping. Thread-safe.
 */
public interface TokenBucket {

    /**
     * A bucket that starts full.
     *
     * @param capacity        the most tokens it holds (the burst), at least 1
     * @param tokensPerSecond the refill rate, above 0
     * @param nanoTicker      a monotonic clock in nanoseconds, such as {@code System::nanoTime}
     */
    static TokenBucket of(long capacity, double tokensPerSecond, LongSupplier nanoTicker) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        if (!(tokensPerSecond > 0) || Double.isInfinite(tokensPerSecond)) {
            throw new IllegalArgumentException(
                    "tokens_per_second: " + tokensPerSecond + " (expected: a finite number > 0)");
        }
        return new SteadyTokenBucket(capacity, tokensPerSecond, nanoTicker);
    }

    /** Takes one token if there is one; {@code false} means the work must wait. */
    boolean tryAcquire();

    /** Nanoseconds until a token will be available, 0 when one is now; a retry-after hint. */
    long nanosUntilAvailable();
}
