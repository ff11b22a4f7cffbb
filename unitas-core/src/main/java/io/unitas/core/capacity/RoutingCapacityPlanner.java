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

/** The {@link CapacityPlanner}: plain routing through a {@link Router}, spillover by {@link SpilloverBands}. */
final class RoutingCapacityPlanner implements CapacityPlanner {

    private final Topology topology;
    private final Router router;
    private final List<Region> regions;
    private final Map<String, Integer> indexById;
    private final double[] capacity;

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
        double[] load = new double[regions.size()];
        double unplaced = 0;
        Map<String, Double> loadByHome = new HashMap<>();
        for (UserLoad user : users) {
            if (indexById.containsKey(user.home())) {
                loadByHome.merge(user.home(), user.load(), Double::sum);
            }
        }
        SpilloverBands bands = SpilloverBands.of(topology, loadByHome, health);
        List<Placement> out = new ArrayList<>(users.size());
        for (UserLoad user : users) {
            RouteDecision d = bands.decide(router.route(user.home(), health), SpilloverBands.position(user.userId()));
            out.add(new Placement(user.userId(), user.home(), d.target(), d.outcome()));
            if (d.hasTarget()) {
                load[indexById.get(d.target().id())] += user.load();
            } else {
                unplaced += user.load();
            }
        }
        return new Spillover(out, toPlan(load, unplaced));
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
}
