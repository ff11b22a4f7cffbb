package io.unitas.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The one way tests wait for real I/O (a socket closing, a child process writing): poll a condition up to a bounded
 * deadline. Timing decisions themselves are tested on an injected clock ({@link MutableClock}), never by waiting.
 */
public final class Await {

    private static final long POLL_MS = 20;

    private Await() {}

    /** Returns once {@code condition} holds; fails naming {@code what} if it does not within {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + timeout.toSeconds() + " s: " + what);
            }
            pause(POLL_MS);
        }
    }

    /**
     * The value of {@code count} once it has moved from 0 and then not changed for {@code quiet} (traffic that has
     * drained), or its last value after {@code timeout}.
     */
    public static int settled(IntSupplier count, Duration quiet, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long stillSince = System.nanoTime();
        int last = count.getAsInt();
        while (System.nanoTime() - deadline < 0) {
            pause(POLL_MS);
            int now = count.getAsInt();
            if (now != last || now == 0) {
                last = now;
                stillSince = System.nanoTime();
            } else if (System.nanoTime() - stillSince >= quiet.toNanos()) {
                return now;
            }
        }
        return last;
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        }
    }
}
