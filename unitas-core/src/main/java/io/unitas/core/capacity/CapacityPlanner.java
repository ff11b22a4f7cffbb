package io.unitas.core.capacity;

import java.util.List;
import java.util.Map;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.rules.KeyTransform;

/**
 * Capacity planning over one topology, as pure functions of their arguments: where load goes under the route
 * decision, which regions it overloads, the cascade that follows, and a spillover placement that keeps regions
 * under capacity. A region without a capacity has unlimited room. The control plane uses {@link #plan} to refuse
 * a switchover that would overload its target.
 *
 * <p>Semantics, exactly:
 * <ul>
 *   <li>{@link #plan}: each home's load goes where the {@linkplain io.unitas.core.Router route decision} sends
 *       it; load of an unknown home or without a healthy region is {@linkplain LoadPlan#unplaced() unplaced}.</li>
 *   <li>{@link #cascade}: repeat: route every user; every region that is healthy, has a capacity and carries
 *       more load than it trips (becomes unhealthy), in topology order, recorded as one step; until a step trips
 *       nothing. The routes are those of the last round. It ends after at most one step per region.</li>
 *   <li>{@link #spillover}: users whose home is healthy stay home. The rest go where
 *       {@link SpilloverBands} built from this topology, the health and the users' load summed per home sends
 *       them: the home's load is shared among the healthy regions of its fallback list by their room left, and a
 *       user's band is chosen by the hash of its id ({@link SpilloverBands#position}), so one user's placement
 *       does not depend on the other users, only on the loads. This is the function a gateway applies live, one
 *       request at a time, with the loads of its unit rules: {@code replay --spillover} predicts it user by user.
 *       Users of an unknown home, or without a healthy region, have no target.</li>
 *   <li>{@link #cascadeWithSpillover}: the cascade where every round places users by spillover instead of the
 *       plain route decision, so regions trip only from load spillover could not avoid (a home's own users,
 *       overflow, or a band holding a little more than its share of the load). Spillover is thus applied <em>within</em> the cascade: placing users by
 *       {@link #spillover} with the cascade's final {@link Cascade#health()} gives the last round's placements.
 *       </li>
 * </ul>
 */
public interface CapacityPlanner {

    /** A planner for {@code topology}. */
    static CapacityPlanner of(Topology topology) {
        return new RoutingCapacityPlanner(topology);
    }

    /**
     * The 64-bit FNV-1a hash of the UTF-8 bytes of {@code userId}, to be compared unsigned
     * ({@link Long#compareUnsigned}); {@link SpilloverBands#position} is its top 63 bits.
     */
    static long spilloverOrder(String userId) {
        return KeyTransform.fnv1a64(userId);
    }

    /** The topology this planner works over. */
    Topology topology();

    /**
     * The load each region carries when every home's load (keyed by home region id, which may name no region)
     * is routed under {@code health}.
     *
     * @throws IllegalArgumentException when a load is negative or not finite
     */
    LoadPlan plan(Map<String, Double> loadByHome, HealthSnapshot health);

    /** The cascade that follows from routing {@code loadByHome} under {@code health}. */
    Cascade cascade(Map<String, Double> loadByHome, HealthSnapshot health);

    /** The spillover placement of {@code users} under {@code health}; placements come in input order. */
    Spillover spillover(List<UserLoad> users, HealthSnapshot health);

    /** The cascade whose every round places {@code users} by {@link #spillover} instead of plain routing. */
    Cascade cascadeWithSpillover(List<UserLoad> users, HealthSnapshot health);
}
