package io.unitas.core.health;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.RegionHealth;

/**
 * What one run of a probe observed: whether the target meets its expectations, how long the probe took, a
 * reason a person can read, the replication lag it measured, and the raw observations behind the verdict.
 *
 * @param up               whether the target met every expectation of its check
 * @param latency          how long the probe took, connection included
 * @param reason           why the target is down, or what was seen when it is up ({@code "primary, writable"})
 * @param replicationLagMs replication lag measured by this probe, or {@link RegionHealth#UNKNOWN_LAG}
 * @param details          named observations ({@code role}, {@code writable}, ...): strings, booleans or numbers
 */
public record ProbeResult(boolean up, Duration latency, String reason, long replicationLagMs,
                          Map<String, Object> details) {

    /** Validates and freezes {@code details}, keeping its order. */
    public ProbeResult {
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(reason, "reason");
        if (latency.isNegative()) {
            throw new IllegalArgumentException("latency: " + latency + " (expected: >= 0)");
        }
        if (replicationLagMs < RegionHealth.UNKNOWN_LAG) {
            throw new IllegalArgumentException(
                    "replication_lag_ms: " + replicationLagMs + " (expected: >= 0, or -1 for unknown)");
        }
        details = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(details, "details")));
    }

    /** A target that met its expectations, with what was seen. */
    public static ProbeResult up(Duration latency, String seen, long replicationLagMs, Map<String, Object> details) {
        return new ProbeResult(true, latency, seen, replicationLagMs, details);
    }

    /** A target that failed, with why. */
    public static ProbeResult down(Duration latency, String reason, long replicationLagMs,
                                   Map<String, Object> details) {
        return new ProbeResult(false, latency, reason, replicationLagMs, details);
    }

    /** A target that failed before anything could be observed (refused, timed out, bad password). */
    public static ProbeResult down(Duration latency, String reason) {
        return down(latency, reason, RegionHealth.UNKNOWN_LAG, Map.of());
    }
}
