package io.unitas.core;

/**
 * The route decision of seed 000 as a pure function: home region + health snapshot → serving region.
 * Home healthy → home; otherwise the home's {@linkplain Topology#fallback(Region) fallback list} in order, first
 * healthy region wins; a home the topology does not have → {@link RouteDecision.Outcome#UNKNOWN_REGION}; nothing
 * healthy → {@link RouteDecision.Outcome#NO_HEALTHY_REGION}.
 *
 * <p>Reads nothing but its arguments and mutates none of them. Every decision it can return for a known home is
 * built once, by {@link #of(Topology)}, so routing a known home allocates nothing.
 */
public interface Router {

    /** A router for {@code topology}, with every decision precomputed. */
    static Router of(Topology topology) {
        return new PrecomputedRouter(topology);
    }

    /** The topology this router decides over. */
    Topology topology();

    /** Routes a request whose user's home is {@code home}. */
    default RouteDecision route(Region home, HealthSnapshot health) {
        return route(home.id(), health);
    }

    /** Routes a request whose user's home region has id {@code homeId}, which may name no known region. */
    RouteDecision route(String homeId, HealthSnapshot health);
}
