package io.unitas.control.client.state;

import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingSnapshot;
import io.unitas.core.rules.UnitRules;

/**
 * A followed {@link RoutingSnapshot} with the revision it came from, swapped whole by the feed that follows it. Every
 * decision is the core's, over {@link #snapshot()}; the other accessors read the snapshot.
 *
 * @param revision where the snapshot came from: the control plane's revision, or a reload counter
 * @param snapshot everything one request's decision reads
 */
public record RoutingState(long revision, RoutingSnapshot snapshot) {

    /**
     * A snapshot whose throttle buckets are new, or taken from {@code previous} where the fence is unchanged, and
     * whose health knows since when each region is healthy: from its source, or from {@code previous} and
     * {@code nowMs} ({@link HealthSnapshot#since}), so the router's {@code holdDown} can hold a recovered region back.
     */
    public static RoutingState of(long revision, UnitRules rules, HealthSnapshot health, WriteFences fences,
                           RoutingState previous, LongSupplier ticker, long nowMs, Duration holdDown) {
        return of(revision, rules.topology(), rules, health, fences, previous, ticker, nowMs, holdDown);
    }

    /** As the other {@code of}, over {@code topology}, with {@code rules} {@code null} when there are none. */
    public static RoutingState of(long revision, Topology topology, UnitRules rules, HealthSnapshot health,
                                  WriteFences fences, RoutingState previous, LongSupplier ticker, long nowMs,
                                  Duration holdDown) {
        return new RoutingState(revision, RoutingSnapshot.next(previous == null ? null : previous.snapshot, topology,
                                                               rules, health, fences, ticker, nowMs, holdDown));
    }

    /** The unit rules, or {@code null} for a follower that routes regions and not users (the DNS server). */
    public UnitRules rules() {
        return snapshot.rules();
    }

    /** Routes over the topology. */
    public Router router() {
        return snapshot.router();
    }

    /** Region health. */
    public HealthSnapshot health() {
        return snapshot.health();
    }

    /** Write fences and the write methods. */
    public WriteFences fences() {
        return snapshot.fences();
    }

    /** The token bucket of every unit under a throttle fence. */
    public Map<String, TokenBucket> throttles() {
        return snapshot.throttles();
    }
}
