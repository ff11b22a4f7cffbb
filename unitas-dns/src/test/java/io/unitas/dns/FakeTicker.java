package io.unitas.dns;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** A ticker (nanoseconds) that moves only when a test moves it; it starts far from zero, as real tickers do. */
final class FakeTicker implements LongSupplier {

    private final AtomicLong nanos = new AtomicLong(Long.MAX_VALUE - Duration.ofDays(1).toNanos());

    @Override
    public long getAsLong() {
        return nanos.get();
    }

    /** Moves time forward by {@code d}. */
    void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }
}
