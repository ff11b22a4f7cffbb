package io.unitas.control;

import java.time.Instant;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.health.UnitLink;
import io.unitas.core.health.UnitLinks;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.fence.FenceRecord;

/**
 * The whole control-plane state at one revision: topology and unit rules with their gray rules (each null until
 * one is applied), write fences by unit, the health table, the current or last switchover (null if none yet), the
 * failover policy, since when each region has been unable to take writes, and the policy's pending proposals.
 * Immutable; each change makes a new value with the next revision.
 */
record ControlState(long revision, Instant updatedAt, Topology topology, UnitRules rules,
                    Map<String, FenceRecord> fences, Map<Region, HealthEntry> health, Switchover switchover,
                    long switchoverCount, FailoverPolicy failover, Map<Region, Instant> faults,
                    List<Proposal> proposals) {

    ControlState {
        fences = Collections.unmodifiableMap(new LinkedHashMap<>(fences));
        health = Collections.unmodifiableMap(new LinkedHashMap<>(health));
        failover = failover == null ? FailoverPolicy.NONE : failover;
        faults = Collections.unmodifiableMap(new LinkedHashMap<>(faults));
        proposals = List.copyOf(proposals);
    }

    /** A state without a failover policy, faults or proposals. */
    ControlState(long revision, Instant updatedAt, Topology topology, UnitRules rules,
                 Map<String, FenceRecord> fences, Map<Region, HealthEntry> health, Switchover switchover,
                 long switchoverCount) {
        this(revision, updatedAt, topology, rules, fences, health, switchover, switchoverCount, FailoverPolicy.NONE,
             Map.of(), List.of());
    }

    /** The state before anything was applied. */
    static ControlState initial() {
        return new ControlState(0, Instant.EPOCH, null, null, Map.of(), Map.of(), null, 0);
    }

    /** The same content at another revision and time; the store stamps each commit with it. */
    ControlState at(long nextRevision, Instant now) {
        return new ControlState(nextRevision, now, topology, rules, fences, health, switchover, switchoverCount,
                                failover, faults, proposals);
    }

    ControlState withTopology(Topology next) {
        return new ControlState(revision, updatedAt, next, rules, fences, health, switchover, switchoverCount,
                                failover, faults, proposals);
    }

    ControlState withRules(UnitRules next) {
        return new ControlState(revision, updatedAt, topology, next, fences, health, switchover, switchoverCount,
                                failover, faults, proposals);
    }

    ControlState withFences(Map<String, FenceRecord> next) {
        return new ControlState(revision, updatedAt, topology, rules, next, health, switchover, switchoverCount,
                                failover, faults, proposals);
    }

    ControlState withHealth(Map<Region, HealthEntry> next) {
        return new ControlState(revision, updatedAt, topology, rules, fences, next, switchover, switchoverCount,
                                failover, faults, proposals);
    }

    ControlState withSwitchover(Switchover next, long count) {
        return new ControlState(revision, updatedAt, topology, rules, fences, health, next, count, failover, faults,
                                proposals);
    }

    ControlState withFailover(FailoverPolicy next) {
        return new ControlState(revision, updatedAt, topology, rules, fences, health, switchover, switchoverCount,
                                next, faults, proposals);
    }

    ControlState withFaults(Map<Region, Instant> next) {
        return new ControlState(revision, updatedAt, topology, rules, fences, health, switchover, switchoverCount,
                                failover, next, proposals);
    }

    ControlState withProposals(List<Proposal> next) {
        return new ControlState(revision, updatedAt, topology, rules, fences, health, switchover, switchoverCount,
                                failover, faults, next);
    }

    /** Each unit's home region, in the rules' order; empty without rules. */
    Map<String, Region> homes() {
        Map<String, Region> homes = new LinkedHashMap<>();
        if (rules != null) {
            rules.units().forEach(u -> homes.put(u.id(), u.home()));
        }
        return homes;
    }

    /**
     * The lag of every unit on every link between regions that report their positions, from each one's last report
     * whatever its freshness: each link carries when it was measured, and a reader refuses an old one.
     */
    List<UnitLink> unitLinks() {
        Map<Region, UnitPositions> positions = new LinkedHashMap<>();
        health.forEach((region, entry) -> positions.put(region, entry.positions()));
        return UnitLinks.of(positions, homes());
    }

    /**
     * {@code region}'s last report as a switchover reads per-unit lag from it: the lags it measured itself, and for
     * every other unit and region the lag its and the other regions' positions give; of two for one pair, the
     * later measured. Empty when it has not reported, or when {@code trustedOnly} and its report is not fresh.
     */
    Optional<HealthReport> lagReport(Region region, boolean trustedOnly) {
        return lagReport(region, trustedOnly, unitLinks());
    }

    /**
     * {@link #lagReport} of every region, the links computed once: what one decision over several units reads (a
     * switchover's step, the failover policy's round, a promotion's RPO).
     */
    Function<Region, Optional<HealthReport>> lagReports(boolean trustedOnly) {
        List<UnitLink> links = unitLinks();
        Map<Region, Optional<HealthReport>> reports = new HashMap<>();
        return region -> reports.computeIfAbsent(region, r -> lagReport(r, trustedOnly, links));
    }

    private Optional<HealthReport> lagReport(Region region, boolean trustedOnly, List<UnitLink> links) {
        HealthEntry entry = health.get(region);
        if (entry == null || trustedOnly && !entry.trusted()) {
            return Optional.empty();
        }
        HealthReport report = entry.report();
        if (!entry.positions().known()) {
            return Optional.of(report);
        }
        Map<String, UnitLag> lags = new LinkedHashMap<>();
        report.unitLags().forEach(l -> lags.put(l.unit() + "\u0000" + l.to().id(), l));
        for (UnitLag l : UnitLinks.lagsFrom(region, links)) {
            lags.merge(l.unit() + "\u0000" + l.to().id(), l,
                       (own, computed) -> computed.measuredAt().isAfter(own.measuredAt()) ? computed : own);
        }
        return Optional.of(report.withUnitLags(List.copyOf(lags.values())));
    }

    /** Whether a switchover is running (not ended). */
    boolean switchoverRunning() {
        return switchover != null && !switchover.phase().terminal();
    }

    /** The health routers consume: every region of the topology, expired or missing reports as unhealthy. */
    HealthSnapshot healthSnapshot() {
        Map<Region, RegionHealth> regions = new LinkedHashMap<>();
        if (topology != null) {
            for (Region region : topology.regions()) {
                HealthEntry entry = health.get(region);
                regions.put(region, entry == null
                        ? RegionHealth.down(java.util.List.of("no health reported for region " + region))
                        : entry.effective());
            }
        }
        return HealthSnapshot.of(revision, regions);
    }
}
