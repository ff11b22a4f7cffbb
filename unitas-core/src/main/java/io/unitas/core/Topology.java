package io.unitas.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The regions, in order, and how they back each other up. The listed order is the global fallback order:
 * a home without its own fallback list fails over to the other regions in that order (the seed's contract).
 * Optional per-region capacity (in the same unit as users' load) and an optional center region.
 *
 * <p>Immutable; built and validated as a whole by {@link #builder()}.
 */
public final class Topology {

    private final List<Region> regions;
    private final Map<String, Region> byId;
    private final Map<Region, Double> capacity;
    private final Map<Region, List<Region>> explicitFallback;
    private final Map<Region, List<Region>> fallback;
    private final Region center;

    private Topology(List<Region> regions, Map<Region, Double> capacity,
                     Map<Region, List<Region>> explicitFallback, Region center) {
        this.regions = List.copyOf(regions);
        Map<String, Region> ids = new HashMap<>();
        regions.forEach(r -> ids.put(r.id(), r));
        this.byId = Map.copyOf(ids);
        this.capacity = Collections.unmodifiableMap(new LinkedHashMap<>(capacity));
        this.explicitFallback = Collections.unmodifiableMap(new LinkedHashMap<>(explicitFallback));
        Map<Region, List<Region>> all = new LinkedHashMap<>();
        for (Region home : regions) {
            List<Region> list = explicitFallback.get(home);
            if (list == null) {
                list = new ArrayList<>(regions);
                list.remove(home);
            }
            all.put(home, List.copyOf(list));
        }
        this.fallback = Collections.unmodifiableMap(all);
        this.center = center;
    }

    /** A builder that validates the whole topology on {@link Builder#build()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A topology of the given region ids in order, without capacities, center or fallback lists. */
    public static Topology of(String... regionIds) {
        Builder builder = builder();
        for (String id : regionIds) {
            builder.region(id);
        }
        return builder.build();
    }

    /** The regions in their listed order, which is the global fallback order. */
    public List<Region> regions() {
        return regions;
    }

    /** The region with this id, if the topology has it. */
    public Optional<Region> region(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Whether the topology has {@code region}. */
    public boolean contains(Region region) {
        return byId.containsKey(region.id());
    }

    /** Position of {@code region} in the listed order, or -1. */
    public int indexOf(Region region) {
        return regions.indexOf(region);
    }

    /** The capacity of {@code region}, empty when it has none (unlimited). */
    public OptionalDouble capacity(Region region) {
        Double c = capacity.get(region);
        return c == null ? OptionalDouble.empty() : OptionalDouble.of(c);
    }

    /** The center region, which hosts the global services, if one is named. */
    public Optional<Region> center() {
        return Optional.ofNullable(center);
    }

    /**
     * The ordered regions that {@code home} fails over to: its explicit list when one is given, otherwise every
     * other region in listed order. Empty for a region the topology does not have.
     */
    public List<Region> fallback(Region home) {
        return fallback.getOrDefault(home, List.of());
    }

    /** The per-home fallback lists that were written explicitly. */
    public Map<Region, List<Region>> explicitFallbacks() {
        return explicitFallback;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Topology t && regions.equals(t.regions) && capacity.equals(t.capacity)
               && explicitFallback.equals(t.explicitFallback) && java.util.Objects.equals(center, t.center);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(regions, capacity, explicitFallback, center);
    }

    @Override
    public String toString() {
        return "Topology{regions=" + regions + ", capacity=" + capacity + ", fallback=" + explicitFallback
               + ", center=" + center + '}';
    }

    /**
     * Collects a topology from raw ids so that every mistake becomes a {@link Problem} with its path
     * ({@code regions[1].id}, {@code fallback.us[0]}, {@code center}) instead of a failure on the first one.
     */
    public static final class Builder {
        private final List<String> regionIds = new ArrayList<>();
        private final List<Double> capacities = new ArrayList<>();
        private final Map<String, List<String>> fallback = new LinkedHashMap<>();
        private String center;

        private Builder() {}

        /** Adds a region without a capacity, after those already added. */
        public Builder region(String id) {
            return region(id, null);
        }

        /** Adds a region with a capacity ({@code null} for none), after those already added. */
        public Builder region(String id, Double capacity) {
            regionIds.add(id);
            capacities.add(capacity);
            return this;
        }

        /** Sets the ordered fallback list of {@code home}. */
        public Builder fallback(String home, List<String> regions) {
            fallback.put(home, new ArrayList<>(regions));
            return this;
        }

        /** Names the center region. */
        public Builder center(String id) {
            this.center = id;
            return this;
        }

        /** Every problem with what was collected, in document order; empty when it would build. */
        public List<Problem> problems() {
            List<Problem> problems = new ArrayList<>();
            Map<String, Integer> seen = new HashMap<>();
            if (regionIds.isEmpty()) {
                problems.add(new Problem("regions", "[] (expected: at least one region)"));
            }
            for (int i = 0; i < regionIds.size(); i++) {
                String id = regionIds.get(i);
                String path = "regions[" + i + "]";
                if (!Region.isValidId(id)) {
                    problems.add(new Problem(path + ".id", "'" + id
                            + "' (expected: lowercase letters, digits, '-' or '_', at most 63)"));
                } else if (seen.containsKey(id)) {
                    problems.add(new Problem(path + ".id",
                            "duplicate region '" + id + "' (first at regions[" + seen.get(id) + "])"));
                } else {
                    seen.put(id, i);
                }
                Double c = capacities.get(i);
                if (c != null && !(c >= 0 && Double.isFinite(c))) {
                    String text = Double.isFinite(c) && c == Math.rint(c) ? Long.toString(c.longValue()) : c.toString();
                    problems.add(new Problem(path + ".capacity", text + " (expected: >= 0)"));
                }
            }
            for (Map.Entry<String, List<String>> e : fallback.entrySet()) {
                String home = e.getKey();
                String path = "fallback." + home;
                if (!seen.containsKey(home)) {
                    problems.add(new Problem(path, "unknown region '" + home + "'" + expectedRegions(seen)));
                }
                Map<String, Integer> inList = new HashMap<>();
                List<String> list = e.getValue();
                for (int i = 0; i < list.size(); i++) {
                    String r = list.get(i);
                    String at = path + "[" + i + "]";
                    if (r != null && r.equals(home)) {
                        problems.add(new Problem(at, "'" + r + "' is the home region itself"
                                + " (expected: only other regions)"));
                    } else if (!seen.containsKey(r)) {
                        problems.add(new Problem(at, "unknown region '" + r + "'" + expectedRegions(seen)));
                    } else if (inList.containsKey(r)) {
                        problems.add(new Problem(at, "duplicate region '" + r + "' (first at " + path + "["
                                + inList.get(r) + "])"));
                    }
                    inList.putIfAbsent(r, i);
                }
            }
            if (center != null && !seen.containsKey(center)) {
                problems.add(new Problem("center", "unknown region '" + center + "'" + expectedRegions(seen)));
            }
            return problems;
        }

        /** Validates as a whole and builds, or throws {@link InvalidModelException} listing every problem. */
        public Topology build() {
            List<Problem> problems = problems();
            if (!problems.isEmpty()) {
                throw new InvalidModelException(problems);
            }
            List<Region> regions = new ArrayList<>();
            Map<Region, Double> capacity = new LinkedHashMap<>();
            for (int i = 0; i < regionIds.size(); i++) {
                Region r = Region.of(regionIds.get(i));
                regions.add(r);
                if (capacities.get(i) != null) {
                    capacity.put(r, capacities.get(i));
                }
            }
            Map<Region, List<Region>> fb = new LinkedHashMap<>();
            fallback.forEach((home, list) -> fb.put(Region.of(home), list.stream().map(Region::of).toList()));
            return new Topology(regions, capacity, fb, center == null ? null : Region.of(center));
        }

        private static String expectedRegions(Map<String, Integer> seen) {
            List<String> ids = new ArrayList<>(seen.keySet());
            ids.sort(java.util.Comparator.comparing(seen::get));
            return " (expected one of: " + String.join(", ", ids) + ")";
        }
    }
}
