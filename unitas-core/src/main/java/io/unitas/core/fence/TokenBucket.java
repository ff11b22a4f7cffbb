package io.unitas.core.fence;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A lock-free token bucket driven by an injected nanosecond ticker: {@code ratePerSecond} tokens a second,
 * at most {@code burst} at once. Kept as one theoretical arrival time (the GCRA form of a token bucket), so
 * taking a token is a single compare-and-set and never allocates. One owner per metered thing.
 */
public final class TokenBucket {

    private final long intervalNanos;
    private final long toleranceNanos;
    private final LongSupplier ticker;
    private final AtomicLong arrival;

    private TokenBucket(double ratePerSecond, int burst, LongSupplier ticker) {
        if (!(ratePerSecond > 0 && Double.isFinite(ratePerSecond))) {
            throw new IllegalArgumentException("rate: " + ratePerSecond + " (expected: > 0)");
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst: " + burst + " (expected: >= 1)");
        }
        this.intervalNanos = Math.max(1, (long) (1_000_000_000L / ratePerSecond));
        this.toleranceNanos = intervalNanos * burst;
        this.ticker = ticker;
        this.arrival = new AtomicLong(ticker.getAsLong() - toleranceNanos); // starts full
    }

    /** A full bucket refilling at {@code ratePerSecond}, holding at most {@code burst} tokens. */
    public static TokenBucket of(double ratePerSecond, int burst, LongSupplier nanoTicker) {
        return new TokenBucket(ratePerSecond, burst, nanoTicker);
    }

    /** A bucket metering a throttle fence's writes. */
    public static TokenBucket of(FencePolicy throttle, LongSupplier nanoTicker) {
        return of(throttle.writesPerSecond(), throttle.burst(), nanoTicker);
    }

    /** How many nanoseconds until a token will be there: 0 when one is there now. Takes nothing. */
    public long waitNanos() {
        long now = ticker.getAsLong();
        return Math.max(0, Math.max(arrival.get(), now - toleranceNanos) + intervalNanos - now);
    }

    /**
     * Takes one token: returns 0 when taken, otherwise how many nanoseconds until one will be there
     * (nothing is taken then).
     */
    public long tryTake() {
        while (true) {
            long now = ticker.getAsLong();
            long seen = arrival.get();
            long next = Math.max(seen, now - toleranceNanos) + intervalNanos;
            long wait = next - now;
            if (wait > 0) {
                return wait;
            }
            if (arrival.compareAndSet(seen, next)) {
                return 0;
            }
        }
    }
}
