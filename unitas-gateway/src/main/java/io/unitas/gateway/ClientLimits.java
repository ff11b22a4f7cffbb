package io.unitas.gateway;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The limits on client connections that {@code gateway.yaml}'s {@code limits} sets, and their counts: how many are
 * open (at most {@code max_connections}; more are accepted and closed at once, and counted), and how many were closed
 * for taking too long over a request head or idling too long. Shared by every event loop.
 */
final class ClientLimits {

    private final int maxConnections;
    private final long headerReadTimeoutNanos;
    private final long idleTimeoutNanos;
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final LongAdder headerReadTimeouts = new LongAdder();
    private final LongAdder idleTimeouts = new LongAdder();

    ClientLimits(GatewayConfig.Limits limits) {
        this.maxConnections = limits.maxConnections();
        this.headerReadTimeoutNanos = limits.headerReadTimeout().toNanos();
        this.idleTimeoutNanos = limits.idleTimeout().toNanos();
    }

    /** Takes a new connection if fewer than the maximum are open; counts it as refused if not. */
    boolean admit() {
        int n;
        do {
            n = open.get();
            if (n >= maxConnections) {
                refused.increment();
                return false;
            }
        } while (!open.compareAndSet(n, n + 1));
        return true;
    }

    /** An admitted connection closed. */
    void closed() {
        open.decrementAndGet();
    }

    /** A connection was closed by its guard while in {@code phase}. */
    void timedOut(ConnectionGuard.Phase phase) {
        (phase == ConnectionGuard.Phase.IDLE ? idleTimeouts : headerReadTimeouts).increment();
    }

    long headerReadTimeoutNanos() {
        return headerReadTimeoutNanos;
    }

    long idleTimeoutNanos() {
        return idleTimeoutNanos;
    }

    int open() {
        return open.get();
    }

    long refused() {
        return refused.sum();
    }

    long headerReadTimeouts() {
        return headerReadTimeouts.sum();
    }

    long idleTimeouts() {
        return idleTimeouts.sum();
    }
}
