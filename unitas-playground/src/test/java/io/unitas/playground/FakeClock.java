package io.unitas.playground;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** A clock that stands still until a test moves it; also a nanosecond ticker for token buckets. */
public final class FakeClock extends Clock {

    private final AtomicLong nanos = new AtomicLong(Instant.parse("2026-03-03T09:00:00Z").toEpochMilli() * 1_000_000);

    /** Moves time forward. */
    public void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    /** The time in nanoseconds, as a ticker. */
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochSecond(0, nanos.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("withZone: a fake clock has one zone, UTC");
    }
}
