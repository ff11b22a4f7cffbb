package io.unitas.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What kind of service a call goes to (seed 004), and so which regions may serve it: a {@link #CORE} service is
 * sharded by unit and served where the user's unit is routed; a {@link #GLOBAL} service keeps strongly consistent data
 * in the center region and takes writes only there; a {@link #SHARED} service serves read replicas of global data in
 * the caller's own region and takes no writes.
 *
 * <p>{@link #place} is the decision, a pure function over the router and a health snapshot.
 */
public enum ServiceKind {
    /** Unit-sharded: served in the region the unit's route decision names (the default). */
    CORE("core"),
    /** Strongly consistent: served in the center region; writes are refused anywhere else. */
    GLOBAL("global"),
    /** Read replicas of global data: served in the caller's own region, read-only. */
    SHARED("shared");

    private final String label;

    ServiceKind(String label) {
        this.label = label;
    }

    /** The name used in configuration ({@code core}, {@code global}, {@code shared}). */
    public String label() {
        return label;
    }

    /** The kind named {@code label}, or {@code null} when there is none. */
    public static ServiceKind ofLabel(String label) {
        for (ServiceKind k : values()) {
            if (k.label.equals(label)) {
                return k;
            }
        }
        return null;
    }

    /**
     * Where a call may go: the regions in the order to try them (the first that has an instance serves), or none and
     * why.
     *
     * @param regions the regions the call may go to, best first; empty when the call is refused
     * @param message one line for a person: where the call goes and why, or why it is refused
     */
    public record Placement(List<Region> regions, String message) {

        /** Copies the list. */
        public Placement {
            regions = List.copyOf(regions);
            Objects.requireNonNull(message, "message");
        }

        /** Whether the call may go anywhere. */
        public boolean allowed() {
            return !regions.isEmpty();
        }

        static Placement refused(String message) {
            return new Placement(List.of(), message);
        }
    }

    /**
     * Places one call to a service of this kind. {@code home} is the home region of the request's unit (the region a
     * request without a unit was routed to, or the caller's own region when it has neither); {@code self} is the
     * caller's region. A {@link #CORE} call goes where {@link Router#route} sends {@code home}, then to the other
     * admitted regions of its fallback list in order; a {@link #GLOBAL} call likewise from the center, but a write only
     * to the center; a {@link #SHARED} read stays in {@code self}, a shared write is refused. A region that is not
     * admitted is never listed.
     */
    public Placement place(Router router, HealthSnapshot health, long nowMs, String home, String self, boolean write) {
        Topology topology = router.topology();
        return switch (this) {
            case CORE -> fromHome(router, health, nowMs, home, false);
            case GLOBAL -> topology.center()
                    .map(center -> fromHome(router, health, nowMs, center.id(), write))
                    .orElseGet(() -> Placement.refused("a global service needs a center region; the topology has none"));
            case SHARED -> {
                if (write) {
                    yield Placement.refused("a shared service is a read-only replica; write through the global "
                                            + "service in the center");
                }
                Region own = topology.region(self).orElse(null);
                yield own == null ? Placement.refused("unknown region '" + self + "'")
                        : new Placement(List.of(own), "shared service read in the caller's region " + own);
            }
        };
    }

    /** The admitted regions from {@code homeId} along its fallback list; with {@code homeOnly}, the home or nothing. */
    private static Placement fromHome(Router router, HealthSnapshot health, long nowMs, String homeId,
                                      boolean homeOnly) {
        RouteDecision decision = router.route(homeId, health, nowMs);
        if (!decision.hasTarget()) {
            return Placement.refused(decision.message());
        }
        Region home = router.topology().region(homeId).orElseThrow();
        if (homeOnly) {
            return decision.target().equals(home)
                    ? new Placement(List.of(home), decision.message())
                    : Placement.refused("writes of a global service go to the center " + home
                                        + " only, and it is not admitted: " + decision.message());
        }
        long holdDownMs = router.holdDown().toMillis();
        List<Region> order = new ArrayList<>();
        order.add(decision.target());
        for (Region r : router.topology().fallback(home)) {
            if (!r.equals(decision.target()) && health.get(r).admitted(nowMs, holdDownMs)) {
                order.add(r);
            }
        }
        return new Placement(order, decision.message());
    }
}
