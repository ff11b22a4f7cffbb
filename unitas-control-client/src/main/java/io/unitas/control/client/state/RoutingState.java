package io.unitas.control.client.state;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import io.unitas.core.capacity.SpilloverBands;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitRules;

/**
 * Everything one request's decision reads, as one immutable snapshot swapped whole: the unit rules (with their
 * topology and gray rules), the router over that topology, region health and write fences, plus the token
 * buckets metering throttled units (carried over from the previous snapshot while a unit's fence is unchanged).
 *
 * @param revision  where the snapshot came from: the control plane's revision, or a reload counter
 * @param rules     unit rules and the topology they were validated against, or {@code null} for a follower that
 *                  routes regions and not users (the DNS server)
 * @param router    routes over the topology
 * @param health    region health
 * @param fences    write fences and the write methods
 * @param throttles the token bucket of every unit under a throttle fence
 * @param spill     where the users of a down home spill over, from the topology's capacities and the units' loads
 */
public record RoutingState(long revision, UnitRules rules, Router router, HealthSnapshot health, WriteFences fences,
                    Map<String, TokenBucket> throttles, Spill spill) {

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
        Map<String, TokenBucket> buckets = new HashMap<>();
        fences.fences().forEach((unit, fence) -> {
            if (fence.mode() == FencePolicy.Mode.THROTTLE) {
                boolean same = previous != null && fence.equals(previous.fences.fences().get(unit))
                               && previous.throttles.containsKey(unit);
                buckets.put(unit, same ? previous.throttles.get(unit) : TokenBucket.of(fence, ticker));
            }
        });
        HealthSnapshot tracked = health.since(previous == null ? null : previous.health, nowMs);
        return new RoutingState(revision, rules, Router.of(topology, holdDown), tracked, fences,
                                Map.copyOf(buckets), new Spill(topology, rules, tracked, nowMs, holdDown));
    }

    /**
     * The {@link SpilloverBands} of one snapshot: built when the snapshot is, from the topology's capacities and the
     * load of every unit summed per home region, and built again only when a held-down region's hold-down ends (as
     * the router's decisions are), so a decision allocates nothing. Without a capacity in the topology or a load in
     * the rules there is nothing to spill: every failover goes to the first admitted region, as routed.
     */
    public static final class Spill {

        private final Topology topology;
        private final Map<String, Double> loadByHome;
        private final HealthSnapshot health;
        private final Duration holdDown;
        private final boolean active;
        // An immutable value swapped whole; a stale one is only rebuilt, never wrong for its window.
        private volatile Memo memo;

        Spill(Topology topology, UnitRules rules, HealthSnapshot health, long nowMs, Duration holdDown) {
            this.topology = topology;
            this.health = health;
            this.holdDown = holdDown;
            Map<String, Double> loads = new LinkedHashMap<>();
            for (Unit unit : rules == null ? java.util.List.<Unit>of() : rules.units()) {
                rules.load(unit.id()).ifPresent(load -> loads.merge(unit.home().id(), load, Double::sum));
            }
            this.loadByHome = Map.copyOf(loads);
            boolean capacity = false;
            for (Region r : topology.regions()) {
                capacity |= topology.capacity(r).isPresent();
            }
            this.active = capacity && !loads.isEmpty();
            this.memo = active ? build(nowMs) : null;
        }

        private Memo build(long nowMs) {
            return new Memo(nowMs, SpilloverBands.of(topology, loadByHome, health, nowMs, holdDown));
        }

        /**
         * {@code routed}, or where a failover of it spills over for the user whose routing key is {@code key}
         * ({@code null}: no key, no spillover) at {@code nowMs}.
         */
        public RouteDecision decide(RouteDecision routed, String key, long nowMs) {
            if (!active || key == null || routed.outcome() != RouteDecision.Outcome.FAILOVER) {
                return routed;
            }
            Memo m = memo;
            if (nowMs < m.fromMs || nowMs > m.bands.validUntilMs()) {
                m = build(nowMs);
                memo = m;
            }
            return m.bands.decide(routed, SpilloverBands.position(key));
        }

        /** The bands in force from {@code fromMs} to their {@link SpilloverBands#validUntilMs()}. */
        private record Memo(long fromMs, SpilloverBands bands) {}
    }
}
