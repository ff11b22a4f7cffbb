package io.unitas.core.capacity;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Function;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import io.unitas.core.rules.KeyTransform;

/** The {@link CapacityPlanner}: plain routing through a {@link Router}, spillover over the fallback lists. */
final class RoutingCapacityPlanner implements CapacityPlanner {

    private final Topology topology;
    private final Router router;
    private final List<Region> regions;
    private final Map<String, Integer> indexById;
    private final double[] capacity;
    private final int[][] fallback;

    RoutingCapacityPlanner(Topology topology) {
        this.topology = topology;
        this.router = Router.of(topology);
        this.regions = topology.regions();
        int n = regions.size();
        this.indexById = new HashMap<>();
        this.capacity = new double[n];
        for (int i = 0; i < n; i++) {
            Region r = regions.get(i);
            indexById.put(r.id(), i);
            capacity[i] = topology.capacity(r).orElse(Double.POSITIVE_INFINITY);
        }
        this.fallback = new int[n][];
        for (int i = 0; i < n; i++) {
            fallback[i] = topology.fallback(regions.get(i)).stream().mapToInt(r -> indexById.get(r.id())).toArray();
        }
    }

    @Override
    public Topology topology() {
        return topology;
    }

    @Override
    public LoadPlan plan(Map<String, Double> loadByHome, HealthSnapshot health) {
        double[] load = new double[regions.size()];
        double unplaced = 0;
        for (Map.Entry<String, Double> e : loadByHome.entrySet()) {
            double v = e.getValue();
            if (!(v >= 0 && Double.isFinite(v))) {
                throw new IllegalArgumentException("load of home " + e.getKey() + ": " + v + " (expected: a number >= 0)");
            }
            RouteDecision d = router.route(e.getKey(), health);
            if (d.hasTarget()) {
                load[indexById.get(d.target().id())] += v;
            } else {
                unplaced += v;
            }
        }
        return toPlan(load, unplaced);
    }

    @Override
    public Cascade cascade(Map<String, Double> loadByHome, HealthSnapshot health) {
        return cascade(health, h -> plan(loadByHome, h));
    }

    @Override
    public Cascade cascadeWithSpillover(List<UserLoad> users, HealthSnapshot health) {
        return cascade(health, h -> spillover(users, h).plan());
    }

    private Cascade cascade(HealthSnapshot start, Function<HealthSnapshot, LoadPlan> round) {
        List<CascadeStep> steps = new ArrayList<>();
        HealthSnapshot health = start;
        while (true) {
            HealthSnapshot now = health;
            LoadPlan plan = round.apply(now);
            List<RegionLoad> tripped = plan.regions().stream()
                    .filter(r -> r.overloaded() && now.isHealthy(r.region()))
                    .toList();
            if (tripped.isEmpty()) {
                return new Cascade(steps, health, plan);
            }
            int step = steps.size() + 1;
            steps.add(new CascadeStep(step, tripped.stream().map(RegionLoad::region).toList()));
            health = trip(health, tripped, step);
        }
    }

    private static HealthSnapshot trip(HealthSnapshot health, List<RegionLoad> tripped, int step) {
        Map<Region, RegionHealth> next = new LinkedHashMap<>(health.regions());
        for (RegionLoad r : tripped) {
            next.put(r.region(), RegionHealth.down(List.of("tripped in cascade step " + step + ": load " + r.load()
                    + " > capacity " + r.capacity().getAsDouble())));
        }
        return HealthSnapshot.of(health.revision(), next);
    }

    @Override
    public Spillover spillover(List<UserLoad> users, HealthSnapshot health) {
        int n = regions.size();
        boolean[] healthy = new boolean[n];
        for (int i = 0; i < n; i++) {
            healthy[i] = health.isHealthy(regions.get(i));
        }
        double[] load = new double[n];
        double[] room = capacity.clone();
        double unplaced = 0;
        Placement[] out = new Placement[users.size()];
        List<Displaced> displaced = new ArrayList<>();
        for (int u = 0; u < out.length; u++) {
            UserLoad user = users.get(u);
            Integer home = indexById.get(user.home());
            if (home == null) {
                out[u] = new Placement(user.userId(), user.home(), null, RouteDecision.Outcome.UNKNOWN_REGION);
                unplaced += user.load();
            } else if (healthy[home]) {
                out[u] = new Placement(user.userId(), user.home(), regions.get(home), RouteDecision.Outcome.HOME);
                load[home] += user.load();
                room[home] -= user.load();
            } else {
                displaced.add(new Displaced(u, home, KeyTransform.fnv1a64(user.userId())));
            }
        }
        // List.sort is stable, so equal hashes keep input order.
        displaced.sort((a, b) -> Long.compareUnsigned(a.order, b.order));
        for (Displaced d : displaced) {
            UserLoad user = users.get(d.user);
            int first = -1;
            int chosen = -1;
            for (int r : fallback[d.home]) {
                if (!healthy[r]) {
                    continue;
                }
                if (first < 0) {
                    first = r;
                }
                if (room[r] >= user.load()) {
                    chosen = r;
                    break;
                }
            }
            if (first < 0) {
                out[d.user] = new Placement(user.userId(), user.home(), null, RouteDecision.Outcome.NO_HEALTHY_REGION);
                unplaced += user.load();
                continue;
            }
            RouteDecision.Outcome reason = chosen < 0 ? RouteDecision.Outcome.OVERFLOW
                                    : chosen == first ? RouteDecision.Outcome.FAILOVER : RouteDecision.Outcome.SPILLOVER;
            int target = chosen < 0 ? first : chosen;
            out[d.user] = new Placement(user.userId(), user.home(), regions.get(target), reason);
            load[target] += user.load();
            room[target] -= user.load();
        }
        return new Spillover(List.of(out), toPlan(load, unplaced));
    }

    private LoadPlan toPlan(double[] load, double unplaced) {
        List<RegionLoad> out = new ArrayList<>(load.length);
        for (int i = 0; i < load.length; i++) {
            out.add(new RegionLoad(regions.get(i), load[i], Double.isInfinite(capacity[i]) ? OptionalDouble.empty()
                                                                                            : OptionalDouble.of(capacity[i])));
        }
        return new LoadPlan(out, unplaced);
    }

    @Override
    public String toString() {
        return "CapacityPlanner{" + topology + '}';
    }

    /** A user whose home is down, waiting for a place. */
    private record Displaced(int user, int home, long order) {}
}
