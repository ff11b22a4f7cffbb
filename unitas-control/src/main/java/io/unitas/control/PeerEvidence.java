package io.unitas.control;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import io.unitas.core.Region;

/**
 * What regions said of other regions they could not connect to: by region reported, by observer, the instant the
 * control plane received the latest such report. Immutable; a report of a region about itself is never kept, and
 * reports older than the evidence's lifetime no longer count.
 */
record PeerEvidence(Map<Region, Map<Region, Instant>> reports) {

    /** No evidence. */
    static final PeerEvidence NONE = new PeerEvidence(Map.of());

    /** One observer's latest report of a region it cannot reach. */
    record Unreachable(Region observer, Instant receivedAt) {}

    PeerEvidence {
        Map<Region, Map<Region, Instant>> copy = new LinkedHashMap<>();
        reports.forEach((region, byObserver) -> copy.put(region, Map.copyOf(byObserver)));
        reports = java.util.Collections.unmodifiableMap(copy);
    }

    /** This evidence and {@code observer}'s report, received at {@code at}, that it cannot reach {@code region}. */
    PeerEvidence with(Region region, Region observer, Instant at) {
        if (region.equals(observer)) {
            return this; // a region that cannot reach itself says nothing of whether others can
        }
        Map<Region, Map<Region, Instant>> next = new LinkedHashMap<>(reports);
        Map<Region, Instant> byObserver = new LinkedHashMap<>(next.getOrDefault(region, Map.of()));
        byObserver.merge(observer, at, (a, b) -> a.isAfter(b) ? a : b);
        next.put(region, byObserver);
        return new PeerEvidence(next);
    }

    /**
     * The latest report, from a region other than {@code region}, that {@code region} is unreachable, received after
     * {@code after} (the region's own last report) and no older than {@code lifetime} at {@code now}; empty when
     * there is none.
     */
    Optional<Unreachable> against(Region region, Instant after, Instant now, Duration lifetime) {
        Unreachable latest = null;
        for (Map.Entry<Region, Instant> e : reports.getOrDefault(region, Map.of()).entrySet()) {
            Instant at = e.getValue();
            if (e.getKey().equals(region) || !at.isAfter(after) || at.isAfter(now)
                || Duration.between(at, now).compareTo(lifetime) > 0) {
                continue;
            }
            if (latest == null || at.isAfter(latest.receivedAt())) {
                latest = new Unreachable(e.getKey(), at);
            }
        }
        return Optional.ofNullable(latest);
    }

    /** This evidence without the reports older than {@code lifetime} at {@code now}. */
    PeerEvidence pruned(Instant now, Duration lifetime) {
        Map<Region, Map<Region, Instant>> next = new LinkedHashMap<>();
        reports.forEach((region, byObserver) -> {
            Map<Region, Instant> kept = new LinkedHashMap<>();
            byObserver.forEach((observer, at) -> {
                if (Duration.between(at, now).compareTo(lifetime) <= 0) {
                    kept.put(observer, at);
                }
            });
            if (!kept.isEmpty()) {
                next.put(region, kept);
            }
        });
        return next.size() == reports.size() && next.equals(reports) ? this : new PeerEvidence(next);
    }
}
