package io.unitas.core.health;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.RegionHealth;

/**
 * The published state of one check after its thresholds: up or down, the latency of its last probe, why it is
 * down, its measured replication lag and the last observations.
 *
 * @param up               whether the check counts as passing
 * @param latencyMs        latency of the last probe in milliseconds, 0 when there was none
 * @param reason           why the check is down; empty when up
 * @param replicationLagMs measured replication lag, or {@link RegionHealth#UNKNOWN_LAG}
 * @param details          the last probe's observations (strings, booleans or numbers)
 */
public record CheckReport(boolean up, long latencyMs, String reason, long replicationLagMs,
                          Map<String, Object> details) {

    /** Validates ranges and freezes {@code details}, keeping its order. */
    public CheckReport {
        Objects.requireNonNull(reason, "reason");
        if (latencyMs < 0) {
            throw new IllegalArgumentException("latency_ms: " + latencyMs + " (expected: >= 0)");
        }
        if (replicationLagMs < RegionHealth.UNKNOWN_LAG) {
            throw new IllegalArgumentException(
                    "replication_lag_ms: " + replicationLagMs + " (expected: >= 0, or -1 for unknown)");
        }
        details = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(details, "details")));
    }

    /** A check that is down for {@code reason}, with nothing observed. */
    public static CheckReport down(String reason) {
        return new CheckReport(false, 0, reason, RegionHealth.UNKNOWN_LAG, Map.of());
    }

    /**
     * The same check with its verdict flipped, for checks configured as {@code inverted} (Route 53's "invert
     * health check status"): up becomes down with a reason saying so, down becomes up.
     */
    public CheckReport inverted() {
        return new CheckReport(!up, latencyMs, up ? "inverted: the check passes" : "", replicationLagMs, details);
    }
}
