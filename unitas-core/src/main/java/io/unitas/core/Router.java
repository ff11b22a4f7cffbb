package io.unitas.core;

import java.time.Duration;

/**
 * The route decision of seed 000 as a pure function: home region + health snapshot (+ the time) → serving region.
 * A region is <em>admitted</em> when it is healthy and has been for at least the router's {@linkplain #holdDown()
 * hold-down} ({@link RegionHealth#admitted}), so a flapping region does not take traffic back the moment it looks
 * well. Home admitted → home; otherwise the home's {@linkplain Topology#fallback(Region) fallback list} in order,
 * first admitted region wins; a home the topology does not have → {@link RouteDecision.Outcome#UNKNOWN_REGION};
 * nothing admitted → {@link RouteDecision.Outcome#NO_HEALTHY_REGION}.
 *
 * <p>A write whose serving region is admitted but read-only ({@link RegionHealth#writable()} false) follows a
 * {@link ReadOnlyPolicy}: {@link RouteDecision.Outcome#READ_ONLY} (refused), or the next admitted writable region
 * of the list ({@link RouteDecision.Outcome#WRITE_FAILOVER}); reads are served by the read-only region as before.
 *
 * <p>Reads nothing but its arguments and mutates none of them. Every decision it can return for a known home is
 * built once, by {@link #of(Topology, Duration)}, so routing a known home allocates nothing.
 */
public interface Router {

    /** A router for {@code topology} without hold-down, with every decision precomputed. */
    static Router of(Topology topology) {
        return of(topology, Duration.ZERO);
    }

    /**
     * A router for {@code topology} that admits a region once it has been healthy for {@code holdDown}.
     *
     * @throws IllegalArgumentException when {@code holdDown} is negative
     */
    static Router of(Topology topology, Duration holdDown) {
        return new PrecomputedRouter(topology, holdDown);
    }

    /** The topology this router decides over. */
    Topology topology();

    /** How long a region must have been healthy before it takes traffic again. */
    Duration holdDown();

    /** Routes a request whose user's home is {@code home}, every healthy region admitted (no hold-down). */
    default RouteDecision route(Region home, HealthSnapshot health) {
        return route(home.id(), health);
    }

    /**
     * Routes a read whose user's home region has id {@code homeId}, which may name no known region, with every
     * healthy region admitted whatever its hold-down: the steady state, as offline planning sees it.
     */
    default RouteDecision route(String homeId, HealthSnapshot health) {
        return route(homeId, health, Long.MAX_VALUE);
    }

    /** Routes a read for {@code homeId} at {@code nowMs} (epoch milliseconds), applying the hold-down. */
    RouteDecision route(String homeId, HealthSnapshot health, long nowMs);

    /** Routes a write for {@code homeId} at {@code nowMs}: as a read, then {@code policy} if its region is read-only. */
    RouteDecision routeWrite(String homeId, HealthSnapshot health, long nowMs, ReadOnlyPolicy policy);
}
