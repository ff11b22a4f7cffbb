package io.unitas.core.rules;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;

import io.unitas.core.InvalidModelException;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.Topology;

/**
 * A validated set of unit rules over one {@link Topology}: the units and their home regions, where a request's
 * routing key comes from (sources in priority order), how it is transformed, which unit each key range belongs to,
 * what happens to a request without a key, domain prefixes mapped to units, and gray (blue-green) rules per unit.
 *
 * <p>Immutable. {@link #lookup(RequestView)} is pure and allocates at most its result: ranges are sorted into arrays
 * and binary-searched, and every result that does not depend on the key's text is built once, here.
 */
public final class UnitRules {

    private final Topology topology;
    private final List<Unit> units;
    private final Map<String, Unit> unitsById;
    private final Map<String, Double> loads;
    private final List<KeySource> sources;
    private final KeyTransform transform;
    private final List<UnitRange> ranges;
    private final MissingKeyAction missing;
    private final Map<String, String> domains;
    private final Map<String, List<GrayRule>> gray;
    private final Map<String, UnitStrategy> strategies;

    // The compiled form that lookup reads.
    private final KeySource[] sourceArray;
    private final StrategySlot[] strategySlots;
    /** The compiled pattern of each path source, at its index in {@link #sourceArray}. */
    private final PathPattern[] pathPatterns;
    private final RangeTable table;
    private final String[] domainPrefixes;
    private final UnitLookup[] domainResults;
    private final UnitLookup noKey;

    UnitRules(Topology topology, List<Unit> units, Map<String, Double> loads, List<KeySource> sources,
              KeyTransform transform, List<UnitRange> ranges, MissingKeyAction missing, Map<String, String> domains,
              Map<String, List<GrayRule>> gray, Map<String, UnitStrategy> strategies) {
        this.topology = topology;
        this.units = List.copyOf(units);
        Map<String, Unit> byId = new LinkedHashMap<>();
        units.forEach(u -> byId.put(u.id(), u));
        this.unitsById = Collections.unmodifiableMap(byId);
        this.loads = Collections.unmodifiableMap(new LinkedHashMap<>(loads));
        this.sources = List.copyOf(sources);
        this.transform = transform;
        this.ranges = List.copyOf(ranges);
        this.missing = missing;
        this.domains = Collections.unmodifiableMap(new LinkedHashMap<>(domains));
        Map<String, List<GrayRule>> grayCopy = new LinkedHashMap<>();
        gray.forEach((unit, rules) -> grayCopy.put(unit, List.copyOf(rules)));
        this.gray = Collections.unmodifiableMap(grayCopy);
        this.strategies = Map.copyOf(strategies);

        sourceArray = this.sources.toArray(new KeySource[0]);
        strategySlots = new StrategySlot[sourceArray.length];
        pathPatterns = new PathPattern[sourceArray.length];
        for (int i = 0; i < sourceArray.length; i++) {
            if (sourceArray[i].kind() == KeySource.Kind.PATH) {
                pathPatterns[i] = PathPattern.parse(sourceArray[i].name());
            }
            if (sourceArray[i].kind() == KeySource.Kind.STRATEGY) {
                KeySource source = sourceArray[i];
                Map<String, UnitLookup> results = new HashMap<>();
                units.forEach(u -> results.put(u.id(), found(u, source, u.id(), -1)));
                strategySlots[i] = new StrategySlot(strategies.get(source.name()), Map.copyOf(results));
            }
        }
        table = new RangeTable(this.ranges, unitsById);
        domainPrefixes = this.domains.keySet().toArray(new String[0]);
        domainResults = new UnitLookup[domainPrefixes.length];
        for (int i = 0; i < domainPrefixes.length; i++) {
            domainResults[i] = found(unitsById.get(this.domains.get(domainPrefixes[i])), KeySource.domainPrefix(),
                                     domainPrefixes[i], -1);
        }
        noKey = missing == MissingKeyAction.CENTER
                ? new UnitLookup(UnitLookup.Outcome.CENTER, null, topology.center().orElseThrow(), null, null, -1)
                : new UnitLookup(UnitLookup.Outcome.MISSING_KEY, null, null, null, null, -1);
    }

    /** A strategy source's strategy and its result for each unit id, built once. */
    private record StrategySlot(UnitStrategy strategy, Map<String, UnitLookup> results) {}

    private static UnitLookup found(Unit unit, KeySource source, String key, long transformed) {
        return new UnitLookup(UnitLookup.Outcome.UNIT, unit, unit.home(), source, key, transformed);
    }

    /** A builder that validates the whole rule set against a topology on {@link Builder#build(Topology)}. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Finds the unit of {@code request}: the key sources are asked in order and the first that yields a key decides.
     * A header, cookie, query or path key is transformed and matched against the ranges; a domain prefix or a
     * strategy names a unit directly. Every later header, cookie, query or path source that also yields a key must
     * yield the same one, and none may be given more than once: otherwise the lookup ends with
     * {@link UnitLookup.Outcome#AMBIGUOUS_KEY}, since the service behind may read the other value. A key that cannot
     * be transformed ends the lookup with {@link UnitLookup.Outcome#BAD_KEY} rather than trying a lower-priority
     * source. Pure; allocates at most the result.
     */
    public UnitLookup lookup(RequestView request) {
        KeySource keySource = null;
        String key = null;
        for (int i = 0; i < sourceArray.length; i++) {
            KeySource source = sourceArray[i];
            switch (source.kind()) {
                case STRATEGY -> {
                    if (key == null) {
                        StrategySlot slot = strategySlots[i];
                        String id = slot.strategy().unitFor(request);
                        if (id != null) {
                            UnitLookup result = slot.results().get(id);
                            return result != null ? result
                                    : new UnitLookup(UnitLookup.Outcome.UNKNOWN_UNIT, null, null, source, id, -1);
                        }
                    }
                }
                case DOMAIN_PREFIX -> {
                    if (key == null) {
                        int d = domainIndex(request.host());
                        if (d >= 0) {
                            return domainResults[d];
                        }
                    }
                }
                default -> {
                    if (request.repeated(source)) {
                        return UnitLookup.ambiguous(source, null, null, null);
                    }
                    String found = source.kind() == KeySource.Kind.PATH ? pathPatterns[i].match(request.path())
                                                                         : source.read(request);
                    if (found == null || found.isEmpty()) {
                        continue;
                    }
                    if (key == null) {
                        keySource = source;
                        key = found;
                    } else if (!key.equals(found)) {
                        return UnitLookup.ambiguous(keySource, key, source, found);
                    }
                }
            }
        }
        return key != null ? lookupKey(keySource, key) : noKey;
    }

    /** Looks up a key as if {@code source} had yielded it: transform, then ranges. */
    public UnitLookup lookupKey(KeySource source, String key) {
        long k = transform.apply(key);
        if (k < 0) {
            return new UnitLookup(UnitLookup.Outcome.BAD_KEY, null, null, source, key, -1);
        }
        Unit unit = table.find(k);
        return unit != null ? found(unit, source, key, k)
                : new UnitLookup(UnitLookup.Outcome.OUT_OF_RANGE, null, null, source, key, k);
    }

    /** Index of the domain prefix that is the first label of {@code host}, or -1; case-insensitive, no allocation. */
    private int domainIndex(String host) {
        if (host == null) {
            return -1;
        }
        int dot = host.indexOf('.');
        if (dot <= 0) {
            return -1;
        }
        for (int i = 0; i < domainPrefixes.length; i++) {
            String prefix = domainPrefixes[i];
            if (prefix.length() == dot && host.regionMatches(true, 0, prefix, 0, dot)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The gray version for a request of {@code unit}: the version of the unit's first gray rule that applies, or
     * {@code null} when the unit has none or none applies.
     */
    public String grayVersion(Unit unit, RequestView request) {
        List<GrayRule> rules = gray.get(unit.id());
        return rules == null ? null : GrayRule.select(rules, request);
    }

    /**
     * The effect of a switchover: a copy of these rules in which each unit named in {@code newHomes} lives in its new
     * region, and the units that really move lose their gray rules (the target region need not run the same
     * versions). Everything else is unchanged; these rules are not modified.
     *
     * @param newHomes unit id → id of its new home region
     * @throws InvalidModelException naming every unknown unit or region, with paths {@code units.<id>}
     */
    public UnitRules remap(Map<String, String> newHomes) {
        List<Problem> problems = new ArrayList<>();
        newHomes.forEach((unitId, regionId) -> {
            if (!unitsById.containsKey(unitId)) {
                problems.add(new Problem("units." + unitId, "unknown unit '" + unitId + "'"
                        + RulesValidator.expectedOneOf(unitsById.keySet())));
            } else if (regionId == null || topology.region(regionId).isEmpty()) {
                problems.add(new Problem("units." + unitId, "unknown region '" + regionId + "'"
                        + RulesValidator.expectedOneOf(topology.regions().stream().map(Region::id).toList())));
            }
        });
        if (!problems.isEmpty()) {
            throw new InvalidModelException(problems);
        }
        List<Unit> moved = new ArrayList<>();
        Map<String, List<GrayRule>> keptGray = new LinkedHashMap<>(gray);
        for (Unit unit : units) {
            String target = newHomes.get(unit.id());
            if (target != null && !target.equals(unit.home().id())) {
                moved.add(unit.movedTo(topology.region(target).orElseThrow()));
                keptGray.remove(unit.id());
            } else {
                moved.add(unit);
            }
        }
        return new UnitRules(topology, moved, loads, sources, transform, ranges, missing, domains, keptGray,
                             strategies);
    }

    /** The topology these rules were validated against. */
    public Topology topology() {
        return topology;
    }

    /** The units in their listed order. */
    public List<Unit> units() {
        return units;
    }

    /** The unit with this id, or {@code null}. */
    public Unit unit(String id) {
        return unitsById.get(id);
    }

    /**
     * The load unit {@code unitId} brings to its home region (in the topology's capacity unit), empty when the rules
     * do not say. The control plane's capacity planning reads it before a switchover, and the gateway sums it per home
     * region to size its spillover bands ({@code io.unitas.core.capacity.SpilloverBands}).
     */
    public OptionalDouble load(String unitId) {
        Double load = loads.get(unitId);
        return load == null ? OptionalDouble.empty() : OptionalDouble.of(load);
    }

    /**
     * The fraction of the key space that unit {@code unitId}'s ranges cover, in [0, 1]: under {@code mod N} and
     * {@code hash-mod N} the share of users it holds if keys spread evenly. 0 for a unit without ranges.
     */
    public double keyShare(String unitId) {
        double total = 0;
        double mine = 0;
        for (UnitRange r : ranges) {
            total += r.range().size();
            if (r.unit().equals(unitId)) {
                mine += r.range().size();
            }
        }
        return total == 0 ? 0 : mine / total;
    }

    /** The key sources in priority order. */
    public List<KeySource> sources() {
        return sources;
    }

    /** The transform applied to header, cookie, query and path keys. */
    public KeyTransform transform() {
        return transform;
    }

    /** The key ranges in their listed order. */
    public List<UnitRange> ranges() {
        return ranges;
    }

    /** What happens to a request without a key. */
    public MissingKeyAction missing() {
        return missing;
    }

    /** Domain prefixes (lowercase) → unit ids, in listed order. */
    public Map<String, String> domains() {
        return domains;
    }

    /** Unit id → that unit's gray rules in order, for the units that have any. */
    public Map<String, List<GrayRule>> gray() {
        return gray;
    }

    /** The gray rules of unit {@code unitId}, empty when it has none. */
    public List<GrayRule> gray(String unitId) {
        return gray.getOrDefault(unitId, List.of());
    }

    /** Whether {@code unit} lives in the topology's center region (a center unit, in seed 004's words). */
    public boolean isCenterUnit(Unit unit) {
        return topology.center().map(unit.home()::equals).orElse(false);
    }

    /** Content equality: same units, loads, sources, transform, ranges, missing action, domains and gray rules. */
    @Override
    public boolean equals(Object o) {
        return o instanceof UnitRules r && units.equals(r.units) && loads.equals(r.loads) && sources.equals(r.sources)
               && transform.equals(r.transform) && ranges.equals(r.ranges) && missing == r.missing
               && domains.equals(r.domains) && gray.equals(r.gray);
    }

    @Override
    public int hashCode() {
        return Objects.hash(units, loads, sources, transform, ranges, missing, domains, gray);
    }

    @Override
    public String toString() {
        return "UnitRules{units=" + units + ", sources=" + sources + ", transform=" + transform + ", ranges="
               + ranges.size() + ", missing=" + missing.label() + ", domains=" + domains + ", gray=" + gray + '}';
    }

    /**
     * Collects a rule set from raw values so that every mistake becomes a {@link Problem} with its path in the rules
     * file ({@code units[1].region}, {@code key.sources[0]}, {@code ranges[2]}, {@code domains.paris},
     * {@code gray.u-cn[1]}) instead of a failure on the first one. Defaults: transform {@code none}, missing
     * {@code reject}, the strategies installed through {@link UnitStrategy#installed()}.
     */
    public static final class Builder {
        final List<String> unitIds = new ArrayList<>();
        final List<String> unitRegions = new ArrayList<>();
        final List<Double> unitLoads = new ArrayList<>();
        final List<KeySource> sources = new ArrayList<>();
        KeyTransform transform = KeyTransform.none();
        final List<long[]> bounds = new ArrayList<>();
        final List<String> rangeUnits = new ArrayList<>();
        MissingKeyAction missing = MissingKeyAction.REJECT;
        final List<String> domainPrefixes = new ArrayList<>();
        final List<String> domainUnits = new ArrayList<>();
        final Map<String, List<GrayRule>> gray = new LinkedHashMap<>();
        Map<String, UnitStrategy> strategies;

        private Builder() {}

        /** Adds unit {@code id} with home region {@code region}, after those already added. */
        public Builder unit(String id, String region) {
            return unit(id, region, null);
        }

        /** Adds a unit with the load it brings ({@code null} when unknown), after those already added. */
        public Builder unit(String id, String region, Double load) {
            unitIds.add(id);
            unitRegions.add(region);
            unitLoads.add(load);
            return this;
        }

        /** Adds a key source, after (lower in priority than) those already added. */
        public Builder source(KeySource source) {
            sources.add(Objects.requireNonNull(source, "source"));
            return this;
        }

        /** Sets the transform for header, cookie, query and path keys. */
        public Builder transform(KeyTransform transform) {
            this.transform = Objects.requireNonNull(transform, "transform");
            return this;
        }

        /** Adds the inclusive key range {@code first~last} of unit {@code unit}, after those already added. */
        public Builder range(long first, long last, String unit) {
            bounds.add(new long[] {first, last});
            rangeUnits.add(unit);
            return this;
        }

        /** Adds a range; shorthand for {@link #range(long, long, String)}. */
        public Builder range(KeyRange range, String unit) {
            return range(range.first(), range.last(), unit);
        }

        /** Sets what happens to a request without a key. */
        public Builder missing(MissingKeyAction missing) {
            this.missing = Objects.requireNonNull(missing, "missing");
            return this;
        }

        /** Maps the domain prefix {@code prefix} (case-insensitive) to unit {@code unit}. */
        public Builder domain(String prefix, String unit) {
            domainPrefixes.add(prefix);
            domainUnits.add(unit);
            return this;
        }

        /** Sets the gray rules of unit {@code unit}, in order; the rule without a condition must be last. */
        public Builder gray(String unit, List<GrayRule> rules) {
            gray.put(unit, List.copyOf(rules));
            return this;
        }

        /** Sets the strategies that {@code strategy} key sources may name, instead of the installed ones. */
        public Builder strategies(Map<String, UnitStrategy> strategies) {
            this.strategies = Map.copyOf(strategies);
            return this;
        }

        /** Every problem with what was collected, checked against {@code topology}, in document order. */
        public List<Problem> problems(Topology topology) {
            return new RulesValidator(this, topology, availableStrategies()).problems();
        }

        /** Validates as a whole and builds, or throws {@link InvalidModelException} listing every problem. */
        public UnitRules build(Topology topology) {
            Map<String, UnitStrategy> available = availableStrategies();
            List<Problem> problems = new RulesValidator(this, topology, available).problems();
            if (!problems.isEmpty()) {
                throw new InvalidModelException(problems);
            }
            List<Unit> units = new ArrayList<>();
            Map<String, Double> loads = new LinkedHashMap<>();
            for (int i = 0; i < unitIds.size(); i++) {
                units.add(new Unit(unitIds.get(i), topology.region(unitRegions.get(i)).orElseThrow()));
                if (unitLoads.get(i) != null) {
                    loads.put(unitIds.get(i), unitLoads.get(i));
                }
            }
            List<UnitRange> ranges = new ArrayList<>();
            for (int i = 0; i < bounds.size(); i++) {
                ranges.add(new UnitRange(KeyRange.of(bounds.get(i)[0], bounds.get(i)[1]), rangeUnits.get(i)));
            }
            Map<String, String> domains = new LinkedHashMap<>();
            for (int i = 0; i < domainPrefixes.size(); i++) {
                domains.put(domainPrefixes.get(i).toLowerCase(java.util.Locale.ROOT), domainUnits.get(i));
            }
            Map<String, UnitStrategy> used = new HashMap<>();
            sources.stream().filter(s -> s.kind() == KeySource.Kind.STRATEGY)
                   .forEach(s -> used.put(s.name(), available.get(s.name())));
            return new UnitRules(topology, units, loads, sources, transform, ranges, missing, domains, gray, used);
        }

        private Map<String, UnitStrategy> availableStrategies() {
            if (strategies == null && sources.stream().anyMatch(s -> s.kind() == KeySource.Kind.STRATEGY)) {
                strategies = UnitStrategy.installed();
            }
            return strategies == null ? Map.of() : strategies;
        }
    }
}
