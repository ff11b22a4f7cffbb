package io.unitas.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import io.unitas.control.ChangeCommitter.Change;
import io.unitas.control.ControlService.Document;
import io.unitas.control.ControlService.Evidence;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;

/**
 * What the regions' health agents send: each region's own reports, committed as the region's health, and other
 * regions' reports that it is unreachable, kept as evidence for the leader's tick. Plus the operator's reset of a
 * region's last report.
 */
final class HealthIntake {

    private final ChangeCommitter committer;
    private final Clock clock;
    private final ControlMetrics metrics;
    /** How far ahead of this clock a report may say it was observed. */
    private final Duration healthClockSkew;
    /** How long a report counts as fresh; evidence lives no longer. */
    private final Duration healthTtl;
    /**
     * The other regions' reports of regions they cannot reach, as this replica received them. Kept in memory, not in
     * the store: evidence lives no longer than a health TTL, and a new leader waits out the grace as before.
     */
    private final AtomicReference<PeerEvidence> evidence = new AtomicReference<>(PeerEvidence.NONE);

    HealthIntake(ChangeCommitter committer, Clock clock, ControlMetrics metrics, Duration healthClockSkew,
                 Duration healthTtl) {
        this.committer = committer;
        this.clock = clock;
        this.metrics = metrics;
        this.healthClockSkew = healthClockSkew;
        this.healthTtl = healthTtl;
    }

    ChangeResult reportHealth(String actor, String regionId, Document doc) {
        return committer.commit(actor, "health.report", regionId, "", ChangeCommitter.ANY, current -> {
            Optional<Region> region = region(current.topology(), regionId);
            if (region.isEmpty()) {
                return Change.refused(notInTopology(regionId));
            }
            Documents.Read<HealthReport> read = Documents.healthReport(doc.text());
            if (!read.ok()) {
                return Change.refused(read.refusal("health report"));
            }
            HealthReport report = read.value();
            if (!report.region().equals(region.get())) {
                return Change.refused(Refusal.invalid("health report", List.of(new Problem("region", "'"
                        + report.region() + "' (expected: '" + region.get() + "' as in the path)"))));
            }
            Instant latest = clock.instant().plus(healthClockSkew);
            if (report.observedAt().isAfter(latest)) {
                return Change.refused(Refusal.invalid("health report", List.of(new Problem("observed_at",
                        report.observedAt() + " is ahead of the control plane's clock (expected: at most " + latest
                        + ", now + " + healthClockSkew.toSeconds() + "s of allowed skew)"))));
            }
            HealthEntry last = current.health().get(region.get());
            if (last != null && report.sequence() <= last.sequence()
                && !report.observedAt().isAfter(last.observedAt())) {
                return Change.refused(Refusal.of(Refusal.Kind.CONFLICT, "sequence " + report.sequence()
                        + " observed at " + report.observedAt() + " is not newer than sequence " + last.sequence()));
            }
            HealthEntry entry = HealthEntry.received(report, clock.instant());
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.put(region.get(), entry);
            String detail = "healthy=" + entry.reported().healthy() + " writable=" + entry.reported().writable()
                            + " lag=" + entry.reported().replicationLagMs() + "ms";
            // Routine reports change nothing an operator follows: only a flip is worth an audit line.
            boolean flipped = last == null || last.effective().healthy() != entry.reported().healthy()
                              || last.reported().writable() != entry.reported().writable();
            return Change.to(current.withHealth(health), flipped ? detail : "");
        });
    }

    /**
     * Forgets a region's last report, so that its agent's next report is taken whatever its sequence; until then the
     * region counts as unhealthy (no health reported). For a region whose reports a forged one blocks.
     */
    ChangeResult resetHealth(String actor, String regionId, String reason) {
        return committer.commit(actor, "health.reset", regionId, reason, ChangeCommitter.ANY, current -> {
            Optional<Region> region = region(current.topology(), regionId);
            if (region.isEmpty()) {
                return Change.refused(notInTopology(regionId));
            }
            HealthEntry last = current.health().get(region.get());
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.remove(region.get());
            return Change.to(current.withHealth(health), "health of " + regionId + " forgotten"
                    + (last == null ? " (none reported)" : " (last: sequence " + last.sequence() + " observed at "
                                                           + last.observedAt() + ")"));
        });
    }

    /**
     * {@code observerId}'s report that it cannot connect to any endpoint of {@code regionId} it tried: evidence that,
     * once the region's own last report is stale, takes it down without waiting for the grace ({@link
     * HealthEntry#freshness(Instant, Instant, Instant, Duration, Duration, Optional, HealthEntry.Freshness)}). A
     * region's report about itself is ignored. Counted in {@code unitas_control_unreachable_reports_total}.
     */
    Evidence reportUnreachable(String actor, String regionId, String observerId) {
        Topology topology = committer.current().topology();
        Optional<Region> region = region(topology, regionId);
        if (region.isEmpty()) {
            return refused(actor, regionId, notInTopology(regionId));
        }
        Optional<Region> observer = topology.region(observerId);
        if (observer.isEmpty()) {
            String known = String.join(", ", topology.regions().stream().map(Region::id).toList());
            return refused(actor, regionId, new Refusal(Refusal.Kind.BAD_REQUEST, "observer: '" + observerId
                    + "' (expected: a region of the topology: " + known + ")", List.of(new Problem("observer", "'"
                    + observerId + "' (expected: a region of the topology: " + known + ")")), List.of(), null));
        }
        boolean self = observer.get().equals(region.get());
        metrics.increment("unitas_control_unreachable_reports_total",
                          "Reports that a region is unreachable from another, by region, observer and result",
                          "region", region.get().id(), "observer", observer.get().id(), "result",
                          self ? "ignored_self" : "counted");
        if (self) {
            return new Evidence(false, "a region's report about itself is ignored", null);
        }
        Instant now = clock.instant();
        evidence.updateAndGet(e -> e.with(region.get(), observer.get(), now));
        return new Evidence(true, region.get() + " unreachable from " + observer.get() + " at " + now, null);
    }

    /** The evidence still within a health TTL of {@code now}; older reports are dropped for good. */
    PeerEvidence evidence(Instant now) {
        return evidence.updateAndGet(e -> e.pruned(now, healthTtl));
    }

    private Evidence refused(String actor, String regionId, Refusal refusal) {
        return new Evidence(false, refusal.detail(), committer.refuse(actor, "health.unreachable", regionId, "",
                                                                      refusal));
    }

    private static Optional<Region> region(Topology topology, String regionId) {
        return topology == null ? Optional.empty() : topology.region(regionId);
    }

    private static Refusal notInTopology(String regionId) {
        return Refusal.of(Refusal.Kind.NOT_FOUND, "region '" + regionId + "': not in the topology");
    }
}
