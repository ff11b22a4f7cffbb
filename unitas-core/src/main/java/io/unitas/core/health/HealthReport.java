package io.unitas.core.health;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;

/**
 * One region's health as a health agent publishes it: the {@link RegionHealth} the router reads, when it was
 * observed, a sequence number that grows with every report of the agent, and every check's state. This is the
 * document pushed to the control plane and served at {@code /healthz}.
 *
 * @param region           the region the checks describe
 * @param sequence         grows by one with every report the agent publishes; restarts at 1 with the agent
 * @param observedAt       when the checks were rolled up
 * @param health           the region's health
 * @param checks           every check by name, in configuration order
 */
public record HealthReport(Region region, long sequence, Instant observedAt, RegionHealth health,
                           Map<String, CheckReport> checks) {

    /** Validates and freezes {@code checks}, keeping its order. */
    public HealthReport {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(observedAt, "observedAt");
        Objects.requireNonNull(health, "health");
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence: " + sequence + " (expected: >= 0)");
        }
        checks = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(checks, "checks")));
    }

    /** Whether the router may send this region's users here. */
    public boolean healthy() {
        return health.healthy();
    }

    /** Why the region is not fully well, one line per failing check. */
    public List<String> reasons() {
        return health.reasons();
    }

    /** This report with another sequence number. */
    public HealthReport withSequence(long sequence) {
        return new HealthReport(region, sequence, observedAt, health, checks);
    }

    /**
     * Whether {@code other} says something different to a consumer: a change of healthy, writable, the reasons or
     * any check's verdict. Lag, latency and score drift alone are not a change (they are refreshed periodically).
     */
    public boolean differsFrom(HealthReport other) {
        if (other == null || !region.equals(other.region) || health.healthy() != other.health.healthy()
            || health.writable() != other.health.writable() || !health.reasons().equals(other.health.reasons())
            || !checks.keySet().equals(other.checks.keySet())) {
            return true;
        }
        return checks.entrySet().stream().anyMatch(e -> e.getValue().up() != other.checks.get(e.getKey()).up());
    }
}
