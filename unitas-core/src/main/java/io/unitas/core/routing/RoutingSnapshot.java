package io.unitas.core.routing;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * Everything one {@link RoutingDecision} reads, as one immutable value swapped whole: the topology and its router,
 * the unit rules (with their gray rules), region health, write fences, the token buckets metering throttled units,
 * and the spillover bands of a down home. The gateway, the service SDK, DNS and the {@code route} command all decide
 * over this one type.
 *
 * <p>Immutable apart from two things a decision may touch: the token buckets (taken from when a throttled write
 * passes; a newer snapshot keeps a unit's bucket while its fence is unchanged, {@link #next}), and the memo of the
 * spillover bands (rebuilt only when a held-down region's hold-down ends, so a decision allocates nothing).
 */
public final class RoutingSnapshot {

    private final Topology topology;
    private final UnitRules rules;
    private final Router router;
    private final HealthSnapshot health;
    private final WriteFences fences;
    private final Map<String, TokenBucket> throttles;
    private final LongSupplier nanoTicker;
    private final Spill spill;

    private RoutingSnapshot(Topology topology, UnitRules rules, HealthSnapshot health, WriteFences fences,
                            RoutingSnapshot previous, LongSupplier nanoTicker, long nowMs, Duration holdDown) {
        this.topology = Objects.requireNonNull(topology, "topology");
        this.rules = rules;
        this.fences = Objects.requireNonNull(fences, "fences");
        this.nanoTicker = Objects.requireNonNull(nanoTicker, "nanoTicker");
        Map<String, TokenBucket> buckets = new HashMap<>();
        fences.fences().forEach((unit, fence) -> {
            if (fence.mode() == FencePolicy.Mode.THROTTLE) {
                boolean same = previous != null && fence.equals(previous.fences.fences().get(unit))
                               && previous.throttles.containsKey(unit);
                buckets.put(unit, same ? previous.throttles.get(unit) : TokenBucket.of(fence, nanoTicker));
            }
        });
        this.throttles = Map.copyOf(buckets);
        this.health = Objects.requireNonNull(health, "health").since(previous == null ? null : previous.health, nowMs);
        this.router = previous != null && previous.topology.equals(topology)
                      && previous.router.holdDown().equals(holdDown) ? previous.router : Router.of(topology, holdDown);
        this.spill = new Spill(topology, rules, this.health, nowMs, holdDown);
    }

    /**
     * A first snapshot over {@code topology}: {@code rules} is {@code null} for a follower that routes regions and
     * not users (DNS). Throttles are metered by {@code nanoTicker}; a region healthy in {@code health} without a
     * time of its own counts as healthy since {@code nowMs} ({@link HealthSnapshot#since}), so the router's
     * {@code holdDown} can hold it back.
     */
    public static RoutingSnapshot of(Topology topology, UnitRules rules, HealthSnapshot health, WriteFences fences,
                                     LongSupplier nanoTicker, long nowMs, Duration holdDown) {
        return new RoutingSnapshot(topology, rules, health, fences, null, nanoTicker, nowMs, holdDown);
    }

    /** A first snapshot over the rules' topology, without hold-down. */
    public static RoutingSnapshot of(UnitRules rules, HealthSnapshot health, WriteFences fences,
                                     LongSupplier nanoTicker, long nowMs) {
        return of(rules.topology(), rules, health, fences, nanoTicker, nowMs, Duration.ZERO);
    }

    /**
     * The snapshot that replaces {@code previous} ({@code null}: the first): throttled units whose fence is unchanged
     * keep their token bucket, and a region keeps the time since which it is healthy.
     */
    public static RoutingSnapshot next(RoutingSnapshot previous, Topology topology, UnitRules rules,
                                       HealthSnapshot health, WriteFences fences, LongSupplier nanoTicker, long nowMs,
                                       Duration holdDown) {
        return new RoutingSnapshot(topology, rules, health, fences, previous, nanoTicker, nowMs, holdDown);
    }

    /** The snapshot that replaces this one, with the same ticker and hold-down. */
    public RoutingSnapshot next(UnitRules rules, HealthSnapshot health, WriteFences fences, long nowMs) {
        return next(this, rules.topology(), rules, health, fences, nanoTicker, nowMs, router.holdDown());
    }

    /** The regions. */
    public Topology topology() {
        return topology;
    }

    /** The unit rules, or {@code null} for a follower that routes regions only. */
    public UnitRules rules() {
        return rules;
    }

    /** Routes over the topology, with the hold-down. */
    public Router router() {
        return router;
    }

    /** Region health, each healthy region with the time since which it is. */
    public HealthSnapshot health() {
        return health;
    }

    /** The fenced units and the methods that count as writes. */
    public WriteFences fences() {
        return fences;
    }

    /** The token bucket of every unit under a throttle fence. */
    public Map<String, TokenBucket> throttles() {
        return throttles;
    }

    /**
     * {@code routed}, or where a failover of it spills over for the user at band {@code position} at {@code nowMs}:
     * unchanged without a capacity in the topology or a load in the rules.
     */
    RouteDecision spill(RouteDecision routed, long position, long nowMs) {
        return spill.decide(routed, position, nowMs);
    }

    /** Whether failovers spill over at all: the topology has a capacity and the rules a unit load. */
    public boolean spills() {
        return spill.active;
    }

    @Override
    public String toString() {
        return "RoutingSnapshot{regions=" + topology.regions() + ", units="
               + (rules == null ? 0 : rules.units().size()) + ", health=" + health + ", fences="
               + fences.fences().keySet() + '}';
    }

    /**
     * The {@link SpilloverBands} of one snapshot: from the topology's capacities and the load of every unit summed
     * per home region, built again only when a held-down region's hold-down ends (as the router's decisions are).
     */
    private static final class Spill {

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
            for (Unit unit : rules == null ? List.<Unit>of() : rules.units()) {
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

        RouteDecision decide(RouteDecision routed, long position, long nowMs) {
            if (!active || routed.outcome() != RouteDecision.Outcome.FAILOVER) {
                return routed;
            }
            Memo m = memo;
            if (nowMs < m.fromMs || nowMs > m.bands.validUntilMs()) {
                m = build(nowMs);
                memo = m;
            }
            return m.bands.decide(routed, position);
        }

        /** The bands in force from {@code fromMs} to their {@link SpilloverBands#validUntilMs()}. */
        private record Memo(long fromMs, SpilloverBands bands) {}
    }
}
