package io.unitas.core;

import java.util.Objects;

/**
 * Whether a write of a unit may be served in the region it reached, by the routing state in force: at its home
 * region always, elsewhere only where the route decision sends its writes now. A write that a gateway or a direct call
 * brought to any other region is off route: served there, it would land in a store that is not the unit's, which
 * only its home (or the region its writes fail over or spill over to) may take.
 *
 * <p>The route decision is the gateway's for a write ({@link Router#routeWrite}, the same read-only policy): a down
 * home's writes go to the failover region, and, when the topology has capacities (spillover may then pick any admitted
 * region of the home's fallback list), to any admitted region of that list. A region coming back is still held down
 * for the router's {@linkplain Router#holdDown() hold-down}, as at the gateway, so writes the gateway keeps failing
 * over meanwhile are not refused. Pure: reads its arguments only.
 */
public final class WriteGuard {

    private WriteGuard() {}

    /**
     * The verdict on a write of a unit whose home is {@code home}, reaching region {@code here} at {@code nowMs}.
     *
     * @param router   routes over the topology, with the gateway's hold-down
     * @param health   region health in force
     * @param policy   what the gateway does with a write whose region is read-only
     */
    public static Verdict judge(Router router, HealthSnapshot health, Region home, Region here, long nowMs,
                                ReadOnlyPolicy policy) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(here, "here");
        if (home.equals(here)) {
            return new Verdict(true, "home", home, here, home);
        }
        RouteDecision decision = router.routeWrite(home.id(), health, nowMs, policy);
        if (decision.outcome() != RouteDecision.Outcome.FAILOVER
            && decision.outcome() != RouteDecision.Outcome.WRITE_FAILOVER) {
            return new Verdict(false, decision.outcome().reason(), home, here, decision.target());
        }
        if (decision.target().equals(here)) {
            return new Verdict(true, decision.outcome().reason(), home, here, here);
        }
        Topology topology = router.topology();
        if (spills(topology) && topology.fallback(home).contains(here)) {
            RegionHealth h = health.get(here);
            if (h.admitted(nowMs, router.holdDown().toMillis()) && h.writable()) {
                return new Verdict(true, RouteDecision.Outcome.SPILLOVER.reason(), home, here, here);
            }
        }
        return new Verdict(false, decision.outcome().reason(), home, here, decision.target());
    }

    /** Whether spillover can happen at all: only a topology with a capacity sends a failover past its first region. */
    private static boolean spills(Topology topology) {
        for (Region r : topology.regions()) {
            if (topology.capacity(r).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /**
     * A write's verdict.
     *
     * @param served whether it may be served in {@code here}
     * @param route  why: {@code home}, {@code failover}, {@code write_failover}, {@code spillover} when served; the
     *               route decision's outcome for its writes when refused ({@code home}: its home takes them)
     * @param home   the unit's home region by the unit map in force
     * @param here   the region the write reached
     * @param target where the routing state sends the unit's writes now ({@code here} when served), or {@code null}
     *               when nowhere takes them (no healthy region)
     */
    public record Verdict(boolean served, String route, Region home, Region here, Region target) {

        /** One line for a person: where the unit's writes belong and where this one arrived. */
        public String message(String unit) {
            if (served) {
                return "a write of unit " + unit + " (home region " + home + ") is served in " + here + " (" + route
                       + ")";
            }
            return "a write of unit " + unit + " reached region " + here + ", which does not take its writes: its home"
                   + " region is " + home + (target == null || target.equals(home) ? ""
                                             : " and its writes go to " + target + " (" + route + ")")
                   + "; send it through a unitas gateway, which routes it there";
        }
    }
}
