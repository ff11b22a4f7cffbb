package io.unitas.data.remote;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@link Timers} that stand still until a test moves them: due timers run on the test's thread, in order. */
final class ManualTimers implements Timers {

    private static final class Task implements Timer {
        final long due;
        final Runnable run;
        volatile boolean cancelled;

        Task(long due, Runnable run) {
            this.due = due;
            this.run = run;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private final List<Task> tasks = new ArrayList<>();
    private long now;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Timer schedule(Runnable task, long delayNanos) {
        Task t = new Task(now + delayNanos, task);
        tasks.add(t);
        return t;
    }

    /** Moves time forward by {@code d} and runs the timers that came due. */
    void advance(Duration d) {
        List<Task> due = new ArrayList<>();
        synchronized (this) {
            now += d.toNanos();
            for (var it = tasks.iterator(); it.hasNext(); ) {
                Task t = it.next();
                if (t.due <= now) {
                    it.remove();
                    due.add(t);
                }
            }
        }
        due.sort((a, b) -> Long.compare(a.due, b.due));
        due.stream().filter(t -> !t.cancelled).forEach(t -> t.run.run());
    }

    /** Timers scheduled and neither run nor cancelled. */
    synchronized long pending() {
        return tasks.stream().filter(t -> !t.cancelled).count();
    }

    @Override
    public void close() {}
}
