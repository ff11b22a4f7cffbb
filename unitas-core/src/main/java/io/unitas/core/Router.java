package io.unitas.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The route decision of seed 000 as a pure function: home region + health snapshot → serving region.
 * Home healthy → home; otherwise the home's fallback list in order, first healthy region wins.
 *
 * <p>Reads nothing but its arguments and mutates none of them. Every decision it can return for a known
 * home is built once, here, so routing allocates nothing.
 */
public final class Router {

    private final Topology topology;
    private final Map<String, Plan> plans;

    private Router(Topology topology) {
        this.topology = topology;
        Map<String, Plan> byId = new HashMap<>();
        for (Region home : topology.regions()) {
            byId.put(home.id(), new Plan(home, topology.fallback(home)));
        }
        this.plans = Map.copyOf(byId);
    }

    /** A router for {@code topology}. */
    public static Router of(Topology topology) {
        return new Router(topology);
    }

    /** The topology this router decides over. */
    public Topology topology() {
        return topology;
    }

    /** Routes a request whose user's home is {@code home}. */
    public RouteDecision route(Region home, HealthSnapshot health) {
        return route(home.id(), health);
    }

    /** Routes a request whose user's home region has id {@code homeId}, which may name no known region. */
    public RouteDecision route(String homeId, HealthSnapshot health) {
        Plan plan = plans.get(homeId);
        if (plan == null) {
            return new RouteDecision(RouteDecision.Outcome.UNKNOWN_REGION, String.valueOf(homeId), null);
        }
        return plan.decide(health);
    }

    /** The precomputed decisions for one home region. */
    private static final class Plan {
        private final Region home;
        private final RouteDecision atHome;
        private final Region[] fallback;
        private final RouteDecision[] failover;
        private final RouteDecision nowhere;

        Plan(Region home, List<Region> fallback) {
            this.home = home;
            this.atHome = new RouteDecision(RouteDecision.Outcome.HOME, home.id(), home);
            this.fallback = fallback.toArray(new Region[0]);
            this.failover = new RouteDecision[this.fallback.length];
            for (int i = 0; i < this.fallback.length; i++) {
                failover[i] = new RouteDecision(RouteDecision.Outcome.FAILOVER, home.id(), this.fallback[i]);
            }
            this.nowhere = new RouteDecision(RouteDecision.Outcome.NO_HEALTHY_REGION, home.id(), null);
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
