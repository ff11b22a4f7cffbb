package io.unitas.control.client;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Time for a watch: its ticker and where its deadlines (a silent stream, a hung connection attempt) and its
 * reconnection waits are scheduled. The system one runs on the JVM's monotonic clock and one shared daemon thread;
 * a test gives its own and moves time forward (grpc-java's {@code FakeClock} idea), so that a 15 s heartbeat
 * deadline is proven without waiting 15 s.
 *
 * <p>Tasks must be short: they compare ages, close streams and wake the watch's reader; they never block.
 */
public interface WatchScheduler {

    /** The time now, in nanoseconds, from an arbitrary origin (like {@link System#nanoTime()}). */
    long nanoTime();

    /** Runs {@code task} once, {@code delay} from now; the returned handle cancels it if it has not started. */
    Cancellable schedule(Runnable task, Duration delay);

    /** A scheduled task's handle. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task if it has not started; does nothing otherwise. */
        void cancel();
    }

    /** The JVM's monotonic clock, and one daemon thread shared by every watch of the process. */
    static WatchScheduler system() {
        return SystemScheduler.INSTANCE;
    }
}

/** {@link WatchScheduler#system()}. */
final class SystemScheduler implements WatchScheduler {

    static final SystemScheduler INSTANCE = new SystemScheduler();

    private final ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "unitas-watch-timer");
        t.setDaemon(true);
        return t;
    });

    private SystemScheduler() {
        executor.setRemoveOnCancelPolicy(true); // thousands of watches re-arm their deadline on every heartbeat
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
        var future = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }
}
