package io.unitas.health;

import java.time.Duration;

/** How long a probe took, on the monotonic clock (wall-clock jumps must not show as latency). */
final class Latency {

    private Latency() {}

    /** A start mark. */
    static long start() {
        return System.nanoTime();
    }

    /** The time since {@code start}. */
    static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }
}
