package io.unitas.core.internal;

import java.time.Duration;

import io.unitas.core.endpoint.LatencyWeight;

/**
 * The round-trip times one endpoint measured within the last {@code window} (seed 003: 60 s), in a ring of fixed
 * capacity (the oldest sample is overwritten when full). Recording and reading allocate nothing. Not thread-safe:
 * one owner (the endpoint's prober) writes it and publishes the weight it reads.
 */
public final class RttWindow {

    private final long windowNanos;
    private final long[] at;
    private final long[] rtt;
    private int next;
    private int size;

    private RttWindow(Duration window, int capacity) {
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window: " + window + " (expected: > 0s)");
        }
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 1)");
        }
        this.windowNanos = window.toNanos();
        this.at = new long[capacity];
        this.rtt = new long[capacity];
    }

    /** A window of {@code window} holding at most {@code capacity} samples (a probe every 3 s needs 20 for 60 s). */
    public static RttWindow of(Duration window, int capacity) {
        return new RttWindow(window, capacity);
    }

    /** Records one sample measured at {@code nowNanos}. */
    public void record(long nowNanos, long rttNanos) {
        at[next] = nowNanos;
        rtt[next] = Math.max(0, rttNanos);
        next = (next + 1) % at.length;
        size = Math.min(size + 1, at.length);
    }

    /** The mean RTT in milliseconds of the samples younger than the window, or NaN when there are none. */
    public double meanMillis(long nowNanos) {
        long sum = 0;
        int count = 0;
        for (int i = 0; i < size; i++) {
            if (nowNanos - at[i] < windowNanos) {
                sum += rtt[i];
                count++;
            }
        }
        return count == 0 ? Double.NaN : sum / (double) count / 1_000_000.0;
    }

    /** Whether the window holds a sample younger than the window. */
    public boolean hasSamples(long nowNanos) {
        return !Double.isNaN(meanMillis(nowNanos));
    }

    /** The latency weight of the window's mean, or {@code unmeasured} when it holds no recent sample. */
    public int weight(long nowNanos, int unmeasured) {
        double mean = meanMillis(nowNanos);
        return Double.isNaN(mean) ? unmeasured : LatencyWeight.of(mean);
    }
}
