package io.unitas.core.endpoint;

/**
 * Seed 003's latency weight (2.4): {@code max(1, round(1000 / (rtt_ms + 1)))}. The +1 avoids dividing by zero,
 * the inverse makes a nearer endpoint heavier, and the floor of 1 keeps a slow endpoint in the rotation.
 */
public final class LatencyWeight {

    private LatencyWeight() {}

    /** The weight for a mean round-trip time in milliseconds; negative counts as 0, NaN as infinitely slow. */
    public static int of(double rttMillis) {
        if (Double.isNaN(rttMillis)) {
            return 1;
        }
        double rtt = Math.max(0, rttMillis);
        return (int) Math.max(1, Math.round(1000 / (rtt + 1)));
    }
}
