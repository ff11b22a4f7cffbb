package io.unitas.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that stands still until a test moves it forward, so timing is tested without sleeping. */
public final class MutableClock extends Clock {

    private volatile Instant now;

    /** A clock standing at {@code start}. */
    public MutableClock(Instant start) {
        this.now = start;
    }

    /** Moves time forward by {@code d}. */
    public void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
