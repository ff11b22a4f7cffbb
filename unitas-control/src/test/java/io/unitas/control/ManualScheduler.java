package io.unitas.control;

import java.time.Duration;
import java.util.PriorityQueue;

import io.unitas.control.client.WatchScheduler;

/**
 * A watch scheduler whose time stands still until a test moves it (grpc-java's {@code FakeClock}): moving it runs
 * the tasks that fall due, on the test's thread, in time order.
 */
final class ManualScheduler implements WatchScheduler {

    private record Task(long due, long seq, Runnable run) {}

    private final PriorityQueue<Task> tasks = new PriorityQueue<>(
            (a, b) -> a.due != b.due ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long now;
    private long seq;

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, Duration delay) {
        Task t = new Task(now + Math.max(0, delay.toNanos()), seq++, task);
        tasks.add(t);
        return () -> {
            synchronized (this) {
                tasks.remove(t);
            }
        };
    }

    /** Moves time forward by {@code d}, running every task that falls due on the way. */
    void forward(Duration d) {
        long until;
        synchronized (this) {
            until = now + d.toNanos();
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.due > until) {
                    now = until;
                    return;
                }
                tasks.poll();
                now = Math.max(now, next.due);
            }
            next.run.run();
        }
    }

    /** Moves time to the first task due within {@code d} and runs it; false (time unmoved) when there is none. */
    boolean runNextWithin(Duration d) {
        Task next;
        synchronized (this) {
            next = tasks.peek();
            if (next == null || next.due > now + d.toNanos()) {
                return false;
            }
            tasks.poll();
            now = Math.max(now, next.due);
        }
        next.run.run();
        return true;
    }
}
