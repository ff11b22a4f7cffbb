package io.unitas.core.health;

import java.time.Instant;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;

/**
 * One region's health as a health agent publishes it: the {@link RegionHealth} the router reads, when it was
 * observed, a sequence number that grows with every report of the agent, every check's state, and the replication
 * lag of each unit whose data the region ships. This is the document pushed to the control plane and served at
 * {@code /healthz}.
 *
 * @param region           the region the checks describe
 * @param sequence         grows by one with every report the agent publishes; restarts at 1 with the agent
 * @param observedAt       when the checks were rolled up
 * @param health           the region's health
 * @param checks           every check by name, in configuration order
 * @param unitLags         per unit and other region, how far the data this region ships is behind there; a pair
 *                         that is absent is unknown
 * @param positions        what the region's own database says it has written and applied, per unit, from which the
 *                         control plane computes the lag of every link ({@link UnitLinks}); {@link UnitPositions#NONE}
 *                         when the region does not read them
 * @param reconciliation   what the region's own database says about its copies per unit: open siblings and the last
 *                         reconciliation pass; {@link UnitReconciliation#NONE} when the region does not read it
 */
public record HealthReport(Region region, long sequence, Instant observedAt, RegionHealth health,
                           Map<String, CheckReport> checks, List<UnitLag> unitLags, UnitPositions positions,
                           UnitReconciliation reconciliation) {

    /** Validates and freezes {@code checks}, keeping its order, and {@code unitLags}, one entry per pair. */
    public HealthReport {
        Objects.requireNonNull(positions, "positions");
        Objects.requireNonNull(reconciliation, "reconciliation");
        if (positions.applied().containsKey(region)) {
            throw new IllegalArgumentException("positions.applied." + region + ": the reporting region itself "
                                               + "(expected: another region)");
        }
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(observedAt, "observedAt");
        Objects.requireNonNull(health, "health");
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence: " + sequence + " (expected: >= 0)");
        }
        checks = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(checks, "checks")));
        unitLags = List.copyOf(Objects.requireNonNull(unitLags, "unitLags"));
        Set<String> pairs = new HashSet<>();
        for (UnitLag lag : unitLags) {
            if (lag.to().equals(region)) {
                throw new IllegalArgumentException("unit_lag." + lag.unit() + "." + lag.to() + ": the reporting "
                                                   + "region itself (expected: another region)");
            }
            if (!pairs.add(lag.unit() + "\u0000" + lag.to().id())) {
                throw new IllegalArgumentException("unit_lag." + lag.unit() + "." + lag.to()
                                                   + ": given twice (expected: one entry per unit and region)");
            }
        }
    }

    /** A report without what the region's database says of its copies' conflicts and drift. */
    public HealthReport(Region region, long sequence, Instant observedAt, RegionHealth health,
                        Map<String, CheckReport> checks, List<UnitLag> unitLags, UnitPositions positions) {
        this(region, sequence, observedAt, health, checks, unitLags, positions, UnitReconciliation.NONE);
    }

    /** A report without positions. */
    public HealthReport(Region region, long sequence, Instant observedAt, RegionHealth health,
                        Map<String, CheckReport> checks, List<UnitLag> unitLags) {
        this(region, sequence, observedAt, health, checks, unitLags, UnitPositions.NONE);
    }

    /** A report without per-unit lag (every unit's lag unknown). */
    public HealthReport(Region region, long sequence, Instant observedAt, RegionHealth health,
                        Map<String, CheckReport> checks) {
        this(region, sequence, observedAt, health, checks, List.of());
    }

    /** The lag of {@code unit}'s data shipped from this region to {@code to}; empty when not reported. */
    public Optional<UnitLag> unitLag(String unit, Region to) {
        for (UnitLag lag : unitLags) {
            if (lag.unit().equals(unit) && lag.to().equals(to)) {
                return Optional.of(lag);
            }
        }
        return Optional.empty();
    }

    /** This report with {@code lags} as its per-unit lag. */
    public HealthReport withUnitLags(List<UnitLag> lags) {
        return new HealthReport(region, sequence, observedAt, health, checks, lags, positions, reconciliation);
    }

    /** This report with {@code read} as its positions. */
    public HealthReport withPositions(UnitPositions read) {
        return new HealthReport(region, sequence, observedAt, health, checks, unitLags, read, reconciliation);
    }

    /** This report with {@code read} as its conflicts and drift per unit. */
    public HealthReport withReconciliation(UnitReconciliation read) {
        return new HealthReport(region, sequence, observedAt, health, checks, unitLags, positions, read);
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
        return new HealthReport(region, sequence, observedAt, health, checks, unitLags, positions,
                                reconciliation);
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
