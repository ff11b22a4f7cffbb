package io.unitas.gateway;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every deadline of one gateway's connections and exchanges, measured on an injected ticker (nanoseconds) and
 * checked by each event loop every {@code tick}: as nginx's timers, a deadline costs a field write when it moves, not
 * a scheduled task, and an expiry is seen within one tick. Each loop keeps its own list of {@link Entry entries},
 * touched only from that loop, so nothing is locked. Tests move the ticker and call {@link #checkNow()}. An expiry
 * that throws is logged and counted, and the check goes on: one bug must not leave every other deadline unwatched.
 */
final class Timeouts {

    private static final Logger LOG = LoggerFactory.getLogger(Timeouts.class);

    /** An entry's deadline when it has none. */
    static final long NONE = Long.MIN_VALUE;

    private final LongSupplier ticker;
    private final Map<EventExecutor, Loop> loops = new IdentityHashMap<>();
    private final LongAdder failures = new LongAdder();

    Timeouts(EventLoopGroup group, LongSupplier ticker, long tickNanos) {
        this.ticker = ticker;
        for (EventExecutor executor : group) {
            Loop loop = new Loop();
            loops.put(executor, loop);
            executor.scheduleAtFixedRate(loop::check, tickNanos, tickNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The ticker's reading: what every deadline is measured against. */
    long now() {
        return ticker.getAsLong();
    }

    /**
     * A new entry on {@code executor}'s list, calling {@code onExpiry} with the ticker's reading when its deadline
     * passes (once per deadline set). Call it, and every method of the entry, on that event loop.
     */
    Entry entry(EventExecutor executor, LongConsumer onExpiry) {
        Loop loop = loops.get(executor);
        if (loop == null) {
            throw new IllegalArgumentException("executor " + executor + " (expected: one of the gateway's loops)");
        }
        Entry e = new Entry(loop, onExpiry);
        loop.add(e);
        return e;
    }

    /** Expiries that threw: each a bug, logged where it happened. */
    long failures() {
        return failures.sum();
    }

    /** Checks every loop's deadlines at once against the ticker, and returns when all have been checked. */
    void checkNow() {
        List<Future<?>> checks = new ArrayList<>(loops.size());
        loops.forEach((executor, loop) -> checks.add(executor.submit(loop::check)));
        checks.forEach(Future::syncUninterruptibly);
    }

    /** One deadline of one connection or exchange, in a loop's list until {@link #remove() removed}. */
    static final class Entry {
        private final Loop loop;
        private final LongConsumer onExpiry;
        private Entry prev;
        private Entry next;
        private long deadline = NONE;
        private boolean removed;

        private Entry(Loop loop, LongConsumer onExpiry) {
            this.loop = loop;
            this.onExpiry = onExpiry;
        }

        /** Expires at {@code deadline} (a ticker reading), replacing the deadline before. */
        void arm(long deadline) {
            this.deadline = deadline == NONE ? deadline + 1 : deadline;
        }

        /** No deadline until armed again. */
        void disarm() {
            deadline = NONE;
        }

        /** Leaves the list for good (the connection or stream closed). */
        void remove() {
            if (!removed) {
                removed = true;
                deadline = NONE;
                loop.unlink(this);
            }
        }
    }

    /** One event loop's entries, a doubly linked list so that adding and removing cost nothing. */
    private final class Loop {
        private Entry head;
        /** The entry a check looks at next, kept right when an expiry removes it. */
        private Entry cursor;

        void add(Entry e) {
            e.next = head;
            if (head != null) {
                head.prev = e;
            }
            head = e;
        }

        void unlink(Entry e) {
            if (cursor == e) {
                cursor = e.next;
            }
            if (e.prev != null) {
                e.prev.next = e.next;
            } else if (head == e) {
                head = e.next;
            }
            if (e.next != null) {
                e.next.prev = e.prev;
            }
            e.prev = null;
            e.next = null;
        }

        void check() {
            long now = ticker.getAsLong();
            cursor = head;
            while (cursor != null) {
                Entry e = cursor;
                cursor = e.next;
                long deadline = e.deadline;
                if (deadline != NONE && now - deadline >= 0) {
                    e.deadline = NONE;
                    try {
                        e.onExpiry.accept(now);
                    } catch (Throwable bug) { // Errors too: the other deadlines must still be checked
                        failures.increment();
                        LOG.error("a timeout's expiry failed; the other deadlines are still checked", bug);
                    }
                }
            }
        }
    }
}
