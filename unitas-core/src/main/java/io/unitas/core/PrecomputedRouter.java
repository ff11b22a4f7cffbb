package io.unitas.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link Router} that builds every decision of every known home up front, so that routing only looks up. It
 * also remembers the decisions of every home under the last snapshot it saw (by identity): requests arrive in
 * long runs against one snapshot, and for those a decision costs one map lookup and one array read.
 */
final class PrecomputedRouter implements Router {

    private final Topology topology;
    private final Map<String, Plan> plans;
    private final Plan[] byIndex;
    // An immutable pair swapped whole, so readers on other threads see a snapshot with its own decisions.
    private volatile Memo memo = new Memo(null, new RouteDecision[0]);

    PrecomputedRouter(Topology topology) {
        this.topology = topology;
        Map<String, Plan> byId = new HashMap<>();
        List<Region> regions = topology.regions();
        this.byIndex = new Plan[regions.size()];
        for (int i = 0; i < byIndex.length; i++) {
            Region home = regions.get(i);
            byIndex[i] = new Plan(i, home, topology.fallback(home));
            byId.put(home.id(), byIndex[i]);
        }
        // A HashMap, not Map.copyOf: its lookup masks the hash where the immutable map computes a floorMod.
        this.plans = byId;
    }

    @Override
    public Topology topology() {
        return topology;
    }

    @Override
    public RouteDecision route(String homeId, HealthSnapshot health) {
        Plan plan = homeId == null ? null : plans.get(homeId);
        if (plan == null) {
            return RouteDecision.unknownRegion(String.valueOf(homeId));
        }
        Memo m = memo;
        if (m.health != health) {
            RouteDecision[] decisions = new RouteDecision[byIndex.length];
            for (Plan p : byIndex) {
                decisions[p.index] = p.decide(health);
            }
            m = new Memo(health, decisions);
            memo = m;
        }
        return m.decisions[plan.index];
    }

    /** The decisions of every home, by topology index, under one snapshot. */
    private record Memo(HealthSnapshot health, RouteDecision[] decisions) {}

    @Override
    public String toString() {
        return "Router{" + topology + '}';
    }

    /** The precomputed decisions of one home region. */
    private static final class Plan {
        private final int index;
        private final Region home;
        private final RouteDecision atHome;
        private final Region[] fallback;
        private final RouteDecision[] failover;
        private final RouteDecision nowhere;

        Plan(int index, Region home, List<Region> fallback) {
            this.index = index;
            this.home = home;
            this.atHome = RouteDecision.home(home);
            this.fallback = fallback.toArray(new Region[0]);
            this.failover = new RouteDecision[this.fallback.length];
            for (int i = 0; i < this.fallback.length; i++) {
                failover[i] = RouteDecision.failover(home, this.fallback[i]);
            }
            this.nowhere = RouteDecision.noHealthyRegion(home);
        }

        RouteDecision decide(HealthSnapshot health) {
            if (health.isHealthy(home)) {
                return atHome;
            }
            for (int i = 0; i < fallback.length; i++) {
                if (health.isHealthy(fallback[i])) {
                    return failover[i];
                }
            }
            return nowhere;
        }
    }
}
