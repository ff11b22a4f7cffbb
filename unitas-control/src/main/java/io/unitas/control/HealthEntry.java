package io.unitas.control;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.HealthReportJson;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;

/**
 * The last health report of one region as the control plane keeps it: what the health agent said, when it
 * observed and when it arrived, how fresh it is now, the lag of each unit's data the region ships as it measured it,
 * and the positions its database holds (what it wrote and applied, per unit), from which the lag of every link is
 * computed ({@link ControlState#unitLinks()}), and its copies' open siblings and drift per unit (the console's
 * conflicts and drift table).
 */
record HealthEntry(Region region, long sequence, Instant observedAt, Instant receivedAt, RegionHealth reported,
                   JsonNode checks, Freshness freshness, List<UnitLag> unitLags, UnitPositions positions,
                   UnitReconciliation reconciliation) {

    HealthEntry {
        unitLags = List.copyOf(unitLags);
        positions = positions == null ? UnitPositions.NONE : positions;
        reconciliation = reconciliation == null ? UnitReconciliation.NONE : reconciliation;
    }

    /** An entry without conflicts and drift. */
    HealthEntry(Region region, long sequence, Instant observedAt, Instant receivedAt, RegionHealth reported,
                JsonNode checks, Freshness freshness, List<UnitLag> unitLags, UnitPositions positions) {
        this(region, sequence, observedAt, receivedAt, reported, checks, freshness, unitLags, positions,
             UnitReconciliation.NONE);
    }

    /** An entry without positions. */
    HealthEntry(Region region, long sequence, Instant observedAt, Instant receivedAt, RegionHealth reported,
                JsonNode checks, Freshness freshness, List<UnitLag> unitLags) {
        this(region, sequence, observedAt, receivedAt, reported, checks, freshness, unitLags, UnitPositions.NONE);
    }

    /** An entry without per-unit lag (every unit's lag unknown). */
    HealthEntry(Region region, long sequence, Instant observedAt, Instant receivedAt, RegionHealth reported,
                JsonNode checks, Freshness freshness) {
        this(region, sequence, observedAt, receivedAt, reported, checks, freshness, List.of());
    }

    /** How much a report can still be trusted. */
    enum Freshness {
        /** Younger than the TTL. */
        FRESH,
        /** Older than the TTL: shown as stale, still routed on. */
        STALE,
        /** Older than TTL + grace: the region counts as unhealthy. */
        EXPIRED;

        String jsonName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A report as it arrives at {@code receivedAt}: fresh. */
    static HealthEntry received(HealthReport report, Instant receivedAt) {
        return new HealthEntry(report.region(), report.sequence(), report.observedAt(), receivedAt, report.health(),
                               HealthReportJson.toTree(report).get("checks"), Freshness.FRESH, report.unitLags(),
                               report.positions(), report.reconciliation());
    }

    /**
     * The freshness of a report received at {@code receivedAt}, seen at {@code now} by a leader that has led since
     * {@code leadingSince}, with what the other regions say: a report younger than {@code withEvidence} (at most the
     * TTL) is fresh whatever they say (a region that still pushes is up: a partition between two regions is no region
     * failure); one older expires at once, without waiting for the TTL and the grace, when another region reported the
     * region unreachable after it ({@code unreachable}: the latest such report still alive, see
     * {@link PeerEvidence#against}), and without such a report is fresh until the TTL; an expired report
     * stays expired ({@code previous}) until a new one arrives, so that evidence that ages out does not bring back a
     * region that has said nothing since. Otherwise it expires once the region has had the TTL and the grace to push
     * to this leader: a leader hears nothing before it leads (a restart, a failover of the control plane), and that
     * silence says nothing about the region.
     */
    static Freshness freshness(Instant receivedAt, Instant leadingSince, Instant now, Duration ttl, Duration grace,
                               Duration withEvidence, java.util.Optional<PeerEvidence.Unreachable> unreachable,
                               Freshness previous) {
        Duration age = Duration.between(receivedAt, now);
        boolean contradicted = unreachable.filter(u -> u.receivedAt().isAfter(receivedAt)).isPresent();
        if (age.compareTo(contradicted ? withEvidence : ttl) <= 0) {
            return Freshness.FRESH;
        }
        if (previous == Freshness.EXPIRED || contradicted) {
            return Freshness.EXPIRED;
        }
        return Duration.between(heardFrom(receivedAt, leadingSince), now).compareTo(ttl.plus(grace)) <= 0
                ? Freshness.STALE : Freshness.EXPIRED;
    }

    /**
     * Since when a region whose last report arrived at {@code receivedAt} has been silent to a leader that has led
     * since {@code leadingSince}: from that report, or from when this leader began to lead if later (it heard
     * nothing before, and that silence says nothing about the region).
     */
    static Instant heardFrom(Instant receivedAt, Instant leadingSince) {
        return receivedAt.isAfter(leadingSince) ? receivedAt : leadingSince;
    }

    HealthEntry withFreshness(Freshness next) {
        return new HealthEntry(region, sequence, observedAt, receivedAt, reported, checks, next, unitLags, positions,
                               reconciliation);
    }

    /** What routers see: the report, unless it has expired, then unhealthy with the reason why. */
    RegionHealth effective() {
        if (freshness != Freshness.EXPIRED) {
            return reported;
        }
        List<String> reasons = new ArrayList<>();
        reasons.add("health report expired: last received " + receivedAt);
        reasons.addAll(reported.reasons());
        return RegionHealth.down(reasons);
    }

    /** The report as received (its checks left out), for decisions that read per-unit lag. */
    HealthReport report() {
        return new HealthReport(region, sequence, observedAt, reported, java.util.Map.of(), unitLags, positions,
                                reconciliation);
    }

    /** Whether a switchover may act on what this report says: it is fresh. */
    boolean trusted() {
        return freshness == Freshness.FRESH;
    }
}
