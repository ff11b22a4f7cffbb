package io.unitas.core.switchover;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import io.unitas.core.capacity.CapacityPlanner;
import io.unitas.core.capacity.LoadPlan;
import io.unitas.core.capacity.RegionLoad;

/**
 * What a switchover would do before anything moves: each unit's move, the load every region serves before and
 * after (by the {@link CapacityPlanner}, routed through the current health, so a failed-over home counts where it
 * is served), and every reason
 * to refuse it. Refused when a unit or the target is unknown, when the target is not healthy or read-only (it could
 * not take the units' writes), when a unit would
 * be left with no serving region (a safety assertion, never overridable), or when a region would carry more than
 * its capacity (overridable with force, which turns the refusal into a warning).
 *
 * @param target     the region the units move to
 * @param moves      one entry per moving unit, in request order
 * @param loadBefore load served per region now
 * @param loadAfter  load served per region after the move
 * @param refusals   why the switchover must not run, with paths into the request; empty when it may
 * @param warnings   what was overridden by force
 */
public record SwitchoverPlan(Region target, List<Move> moves, Map<Region, Double> loadBefore,
                             Map<Region, Double> loadAfter, List<Problem> refusals, List<Problem> warnings) {

    /** One unit's move. */
    public record Move(String unit, Region from, Region to, double load) {}

    /** Freezes the collections. */
    public SwitchoverPlan {
        moves = List.copyOf(moves);
        loadBefore = Collections.unmodifiableMap(new LinkedHashMap<>(loadBefore));
        loadAfter = Collections.unmodifiableMap(new LinkedHashMap<>(loadAfter));
        refusals = List.copyOf(refusals);
        warnings = List.copyOf(warnings);
    }

    /** Whether the switchover may run. */
    public boolean accepted() {
        return refusals.isEmpty();
    }

    /** Each moving unit's current home, for {@link Switchover#origins()}. */
    public Map<String, Region> origins() {
        Map<String, Region> origins = new LinkedHashMap<>();
        moves.forEach(m -> origins.put(m.unit(), m.from()));
        return origins;
    }

    /**
     * Plans moving {@code units} to {@code targetId}.
     *
     * @param topology the regions and their capacities
     * @param health   current region health
     * @param homes    every unit's current home
     * @param load     the load one unit brings (in the unit of the topology's capacities)
     * @param units    the units to move
     * @param targetId the target region's id
     * @param force    whether to override overload refusals
     */
    public static SwitchoverPlan of(Topology topology, HealthSnapshot health, Map<String, Region> homes,
                                    ToDoubleFunction<String> load, List<String> units, String targetId,
                                    boolean force) {
        List<Problem> refusals = new ArrayList<>();
        List<Problem> warnings = new ArrayList<>();
        Region target = topology.region(targetId).orElse(null);
        if (target == null) {
            refusals.add(new Problem("target", "unknown region '" + targetId + "' (expected one of: "
                    + String.join(", ", topology.regions().stream().map(Region::id).toList()) + ")"));
        } else if (!health.isHealthy(target)) {
            List<String> reasons = health.get(target).reasons();
            refusals.add(new Problem("target", target + " is not healthy"
                    + (reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")")));
        } else if (!health.get(target).writable()) {
            // Moving units to a region that cannot take their writes would fence them until it can: not a move.
            List<String> reasons = health.get(target).reasons();
            refusals.add(new Problem("target", target + " is read-only and cannot take the units' writes"
                    + (reasons.isEmpty() ? "" : " (" + String.join("; ", reasons) + ")")));
        }
        if (units.isEmpty()) {
            refusals.add(new Problem("units", "[] (expected: at least one unit to move)"));
        }
        List<Move> moves = new ArrayList<>();
        Map<String, Region> afterHomes = new LinkedHashMap<>(homes);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < units.size(); i++) {
            String unit = units.get(i);
            Region from = homes.get(unit);
            String path = "units[" + i + "]";
            if (from == null) {
                refusals.add(new Problem(path, "unknown unit '" + unit + "'"));
            } else if (!seen.add(unit)) {
                refusals.add(new Problem(path, "duplicate unit '" + unit + "'"));
            } else if (from.equals(target)) {
                refusals.add(new Problem(path, "unit '" + unit + "' already has home " + target));
            } else if (target != null) {
                moves.add(new Move(unit, from, target, load.applyAsDouble(unit)));
                afterHomes.put(unit, target);
            }
        }
        Router router = Router.of(topology);
        CapacityPlanner planner = CapacityPlanner.of(topology);
        LoadPlan before = planner.plan(loadByHome(homes, load), health);
        LoadPlan after = planner.plan(loadByHome(afterHomes, load), health);
        for (Move move : moves) {
            boolean servedBefore = router.route(move.from(), health).hasTarget();
            if (servedBefore && !router.route(move.to(), health).hasTarget()) {
                refusals.add(new Problem("units[" + units.indexOf(move.unit()) + "]", "unit '" + move.unit()
                        + "' would be left with no serving region"));
            }
        }
        for (RegionLoad then : after.regions()) {
            if (then.overloaded() && then.load() > before.of(then.region()).load()) {
                Problem overload = new Problem("regions." + then.region(), then.region() + " would serve "
                        + format(then.load()) + " of capacity " + format(then.capacity().getAsDouble())
                        + " (expected: <= capacity, or force)");
                (force ? warnings : refusals).add(overload);
            }
        }
        return new SwitchoverPlan(target, moves, served(before), served(after), refusals, warnings);
    }

    private static Map<String, Double> loadByHome(Map<String, Region> homes, ToDoubleFunction<String> load) {
        Map<String, Double> byHome = new LinkedHashMap<>();
        homes.forEach((unit, home) -> byHome.merge(home.id(), load.applyAsDouble(unit), Double::sum));
        return byHome;
    }

    private static Map<Region, Double> served(LoadPlan plan) {
        Map<Region, Double> served = new LinkedHashMap<>();
        plan.regions().forEach(r -> served.put(r.region(), r.load()));
        return served;
    }

    private static String format(double value) {
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }
}
