package io.unitas.core.routing;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;

/**
 * A random routing state and request: three regions, with or without capacities; four units (two at cn), with or
 * without loads; each region healthy or not, writable or not; each unit unfenced, fenced or throttled; a read or a
 * write, with a key or without, routed here or pre-routed by a stamp (a region, or one of no region).
 */
public record RoutingScenario(Topology topology, UnitRules rules, HealthSnapshot health, WriteFences fences, String method,
                       String key, String stamp) {

    public static final long NOW = 1_700_000_000_000L;
    private static final List<String> REGIONS = List.of("cn", "eu", "us");
    private static final List<String> UNITS = List.of("u-cn1", "u-cn2", "u-eu", "u-us");

    public static Arbitrary<RoutingScenario> all() {
        Arbitrary<List<Integer>> capacities = Arbitraries.integers().between(0, 30).list().ofSize(3);
        Arbitrary<List<Integer>> loads = Arbitraries.integers().between(0, 10).list().ofSize(4);
        Arbitrary<List<Integer>> health = Arbitraries.integers().between(0, 3).list().ofSize(3);
        Arbitrary<List<Integer>> fences = Arbitraries.integers().between(0, 4).list().ofSize(4);
        Arbitrary<String> method = Arbitraries.of("GET", "POST", "DELETE");
        Arbitrary<String> key = Arbitraries.oneOf(Arbitraries.integers().between(0, 9_999).map(String::valueOf),
                                                  Arbitraries.just(null), Arbitraries.just("not-a-number"));
        Arbitrary<String> stamp = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(null)),
                net.jqwik.api.Tuple.of(2, Arbitraries.of("cn", "eu", "us")),
                net.jqwik.api.Tuple.of(1, Arbitraries.just("mars")));
        return Combinators.combine(capacities, loads, health, fences, method, key, stamp)
                          .as(RoutingScenario::of);
    }

    private static RoutingScenario of(List<Integer> capacities, List<Integer> loads, List<Integer> health,
                                      List<Integer> fences, String method, String key, String stamp) {
        Topology.Builder t = Topology.builder();
        for (int i = 0; i < 3; i++) { // 0: no capacity
            t.region(REGIONS.get(i), capacities.get(i) == 0 ? null : (double) capacities.get(i));
        }
        Topology topology = t.build();
        UnitRules.Builder r = UnitRules.builder().source(KeySource.header("x-user-id"))
                                       .transform(KeyTransform.mod(10_000));
        String[] homes = {"cn", "cn", "eu", "us"};
        for (int i = 0; i < 4; i++) {
            r.unit(UNITS.get(i), homes[i], loads.get(i) == 0 ? null : (double) loads.get(i));
            r.range(i * 2_500L, i * 2_500L + 2_499, UNITS.get(i));
        }
        Map<Region, RegionHealth> h = new LinkedHashMap<>();
        for (int i = 0; i < 3; i++) { // 0: down, 1: up, 2: up and read-only, 3: up
            int s = health.get(i);
            h.put(Region.of(REGIONS.get(i)), new RegionHealth(s != 0, s != 2, 0, s == 0 ? 0 : 1, List.of()));
        }
        Map<String, FencePolicy> f = new LinkedHashMap<>();
        for (int i = 0; i < 4; i++) { // 0, 1: none; 2: fenced; 3: throttled, a burst of 1; 4: a burst of 2
            switch (fences.get(i)) {
                case 2 -> f.put(UNITS.get(i), FencePolicy.reject(Duration.ofSeconds(7)));
                case 3 -> f.put(UNITS.get(i), FencePolicy.throttle(0.5, 1, Duration.ofSeconds(3)));
                case 4 -> f.put(UNITS.get(i), FencePolicy.throttle(2, 2, Duration.ofSeconds(3)));
                default -> { }
            }
        }
        return new RoutingScenario(topology, r.build(topology), HealthSnapshot.of(h), WriteFences.of(f), method, key,
                                   stamp);
    }

    /** A fresh snapshot of this state (its own token buckets, on a ticker at 0). */
    public RoutingSnapshot snapshot() {
        return RoutingSnapshot.of(topology, rules, health, fences, () -> 0L, NOW, Duration.ZERO);
    }

    /** The request's view: the key in {@code x-user-id}, if any. */
    public RequestView view() {
        return new RequestView() {
            @Override
            public String header(String name) {
                return "x-user-id".equalsIgnoreCase(name) ? key : null;
            }

            @Override
            public String cookie(String name) {
                return null;
            }

            @Override
            public String query(String name) {
                return null;
            }

            @Override
            public String host() {
                return null;
            }
        };
    }
}
