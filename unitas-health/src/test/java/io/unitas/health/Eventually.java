package io.unitas.health;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Polls a real system until it shows what a test waits for; the last value is returned either way. */
final class Eventually {

    private Eventually() {}

    /** Calls {@code probe} every 50 ms until {@code done} holds or {@code limit} passes; returns the last value. */
    static <T> T within(Duration limit, Predicate<T> done, Supplier<T> probe) {
        long deadline = System.nanoTime() + limit.toNanos();
        T value = probe.get();
        while (!done.test(value) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return value;
            }
            value = probe.get();
        }
        return value;
    }
}
