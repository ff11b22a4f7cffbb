package io.unitas.core.ratelimit;

import java.util.function.LongSupplier;

/** {@link TokenBucket} refilled continuously, computed lazily on each call. */
final class SteadyTokenBucket implements TokenBucket {

    private static final double NANOS_PER_SECOND = 1e9;

    private final double capacity;
    private final double tokensPerNano;
    private final LongSupplier ticker;
    private double tokens;
    private long lastRefill;

    SteadyTokenBucket(long capacity, double tokensPerSecond, LongSupplier ticker) {
        this.capacity = capacity;
        this.tokensPerNano = tokensPerSecond / NANOS_PER_SECOND;
        this.ticker = ticker;
        this.tokens = capacity;
        this.lastRefill = ticker.getAsLong();
    }

    @Override
    public synchronized boolean tryAcquire() {
        refill();
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }

    @Override
    public synchronized long nanosUntilAvailable() {
        refill();
        return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) / tokensPerNano);
    }

    private void refill() {
        long now = ticker.getAsLong();
        // A ticker that steps back (it should not) must not drain the bucket.
        if (now > lastRefill) {
            tokens = Math.min(capacity, tokens + (now - lastRefill) * tokensPerNano);
            lastRefill = now;
        }
    }

    @Override
    public String toString() {
        return "TokenBucket{capacity=" + (long) capacity + ", tokens_per_second=" + tokensPerNano * NANOS_PER_SECOND
               + '}';
    }
}
