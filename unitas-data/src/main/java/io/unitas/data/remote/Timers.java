package io.unitas.data.remote;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The time a {@link HomeReadClient} decides by: a nanosecond ticker and one-shot timers on it. Injected so that
 * tests move time instead of waiting for it.
 */
interface Timers extends AutoCloseable {

    /** A timer that can be called off. */
    interface Timer {
        void cancel();
    }

    /** The ticker, in nanoseconds. */
    long nanoTime();

    /** Runs {@code task} once, {@code delayNanos} from now. */
    Timer schedule(Runnable task, long delayNanos);

    @Override
    void close();

    /** Real time: {@link System#nanoTime()} and one daemon timer thread. */
    static Timers system() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "unitas-home-read-timer");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        return new Timers() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public Timer schedule(Runnable task, long delayNanos) {
                var future = executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
                return () -> future.cancel(false);
            }

            @Override
            public void close() {
                executor.shutdownNow();
            }
        };
    }
}
