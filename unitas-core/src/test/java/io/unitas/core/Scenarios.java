package io.unitas.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.unitas.core.capacity.UserLoad;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random but reproducible worlds for the property tests: a topology of one to five regions (some with
 * capacities, some with explicit fallback lists), a health snapshot (some regions left out), and users whose
 * homes are mostly known.
 */
public record Scenarios(Topology topology, HealthSnapshot health, List<UserLoad> users) {

    private static final List<String> POOL = List.of("cn", "eu", "us", "ap", "sa");

    /** The users' load summed per home id, in first-seen order. */
    public Map<String, Double> loadByHome() {
        Map<String, Double> m = new LinkedHashMap<>();
        users.forEach(u -> m.merge(u.home(), u.load(), Double::sum));
        return m;
    }

    /** Every scenario the properties run over. */
    public static Arbitrary<Scenarios> all() {
        Arbitrary<List<String>> regions = Arbitraries.shuffle(POOL)
                .flatMap(order -> Arbitraries.integers().between(1, POOL.size()).map(k -> order.subList(0, k)));
        Arbitrary<Long> shape = Arbitraries.longs();
        Arbitrary<List<String>> ids = Arbitraries.strings().withCharRange('a', 'z').numeric().withChars("-é😀")
                .ofMinLength(1).ofMaxLength(8).list().ofMaxSize(60);
        return Combinators.combine(regions, shape, ids).as(Scenarios::build);
    }

    private static Scenarios build(List<String> regions, long seed, List<String> userIds) {
        Random random = new Random(seed);
        Topology.Builder b = Topology.builder();
        for (String id : regions) {
            b.region(id, random.nextInt(3) == 0 ? null : (double) random.nextInt(30));
        }
        for (String home : regions) {
            if (random.nextInt(3) == 0) {
                List<String> others = new ArrayList<>(regions);
                others.remove(home);
                java.util.Collections.shuffle(others, random);
                b.fallback(home, others.subList(0, random.nextInt(others.size() + 1)));
            }
        }
        Map<Region, RegionHealth> health = new LinkedHashMap<>();
        for (String id : regions) {
            int h = random.nextInt(3);
            if (h < 2) {
                health.put(Region.of(id), RegionHealth.of(h == 1));
            }
        }
        List<UserLoad> users = new ArrayList<>();
        for (String id : userIds) {
            String home = random.nextInt(12) == 0 ? "zz" : regions.get(random.nextInt(regions.size()));
            users.add(new UserLoad(id, home, random.nextInt(6)));
        }
        return new Scenarios(b.build(), HealthSnapshot.of(random.nextInt(5), health), users);
    }
}
