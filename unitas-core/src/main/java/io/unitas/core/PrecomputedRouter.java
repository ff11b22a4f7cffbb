package io.unitas.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A {@link Router} that builds every decision of every known home up front, so that routing only looks up. */
final class PrecomputedRouter implements Router {

    private final Topology topology;
    private final Map<String, Plan> plans;

    PrecomputedRouter(Topology topology) {
        this.topology = topology;
        Map<String, Plan> byId = new HashMap<>();
        for (Region home : topology.regions()) {
            byId.put(home.id(), new Plan(home, topology.fallback(home)));
        }
        this.plans = Map.copyOf(byId);
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
        return plan.decide(health);
    }

    @Override
    public String toString() {
        return "Router{" + topology + '}';
    }

    /** The precomputed decisions of one home region. */
    private static final class Plan {
        private final Region home;
        private final RouteDecision atHome;
        private final Region[] fallback;
        private final RouteDecision[] failover;
        private final RouteDecision nowhere;

        Plan(Region home, List<Region> fallback) {
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
