package io.unitas.core.rules;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.Topology;

/** Checks a {@link UnitRules.Builder}'s raw values as a whole against a topology, in document order. */
final class RulesValidator {

    private static final Pattern DNS_LABEL = Pattern.compile("(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final int LISTED_CHOICES = 12;

    private final UnitRules.Builder b;
    private final Topology topology;
    private final Map<String, UnitStrategy> strategies;
    private final List<Problem> problems = new ArrayList<>();
    private final Map<String, Integer> unitIndex = new java.util.LinkedHashMap<>();

    RulesValidator(UnitRules.Builder builder, Topology topology, Map<String, UnitStrategy> strategies) {
        this.b = builder;
        this.topology = topology;
        this.strategies = strategies;
    }

    List<Problem> problems() {
        checkUnits();
        checkKey();
        checkRanges();
        checkDomains();
        checkGray();
        return problems;
    }

    private void add(String path, String message) {
        problems.add(new Problem(path, message));
    }

    private void checkUnits() {
        if (b.unitIds.isEmpty()) {
            add("units", "[] (expected: at least one unit)");
        }
        List<String> regionIds = topology.regions().stream().map(Region::id).toList();
        for (int i = 0; i < b.unitIds.size(); i++) {
            String id = b.unitIds.get(i);
            String path = "units[" + i + "]";
            if (!Unit.isValidId(id)) {
                add(path + ".id", "'" + id + "' (expected: " + Unit.ID_RULE + ")");
            } else if (unitIndex.containsKey(id)) {
                add(path + ".id", "duplicate unit '" + id + "' (first at units[" + unitIndex.get(id) + "])");
            } else {
                unitIndex.put(id, i);
            }
            String region = b.unitRegions.get(i);
            if (region == null || topology.region(region).isEmpty()) {
                add(path + ".region", "unknown region '" + region + "'" + expectedOneOf(regionIds));
            }
            Double load = b.unitLoads.get(i);
            if (load != null && !(load >= 0 && Double.isFinite(load))) {
                add(path + ".load", load + " (expected: a number >= 0)");
            }
        }
    }

    private void checkKey() {
        if (b.sources.isEmpty()) {
            add("key.sources", "[] (expected: at least one of header, cookie, query, path, domain-prefix, strategy)");
        }
        Map<KeySource, Integer> seen = new HashMap<>();
        for (int i = 0; i < b.sources.size(); i++) {
            KeySource source = b.sources.get(i);
            String path = "key.sources[" + i + "]";
            Integer first = seen.putIfAbsent(source, i);
            if (first != null) {
                add(path, "duplicate source " + source + " (first at key.sources[" + first + "])");
            } else if (source.kind() == KeySource.Kind.STRATEGY && !strategies.containsKey(source.name())) {
                add(path + ".strategy", "unknown strategy '" + source.name() + "'" + (strategies.isEmpty()
                        ? " (expected: a strategy listed in META-INF/services/" + UnitStrategy.class.getName()
                          + "; none is installed)"
                        : expectedOneOf(strategies.keySet())));
            }
        }
        if (b.missing == MissingKeyAction.CENTER && topology.center().isEmpty()) {
            add("key.missing", "center, but the topology names no center region"
                               + " (expected: a topology with a center, or missing: reject)");
        }
    }

    private void checkRanges() {
        boolean readsKeys = b.sources.stream().anyMatch(s -> s.kind().usesRanges());
        if (readsKeys && b.bounds.isEmpty()) {
            add("ranges", "[] (expected: at least one range for the header, cookie, query or path key sources)");
        } else if (!readsKeys && !b.bounds.isEmpty()) {
            add("ranges", b.bounds.size() + " ranges, but no header, cookie, query or path key source reads a key"
                          + " (expected: such a source in key.sources, or no ranges)");
        }
        KeyTransform t = b.transform;
        String within = t.isModular() ? "0~" + (t.space() - 1) + " under " + t : null;
        List<Integer> valid = new ArrayList<>();
        for (int i = 0; i < b.bounds.size(); i++) {
            long first = b.bounds.get(i)[0];
            long last = b.bounds.get(i)[1];
            String path = "ranges[" + i + "]";
            String text = first + "~" + last;
            if (first < 0 || last < 0) {
                add(path + ".range", text + " (expected: bounds >= 0)");
            } else if (first > last) {
                add(path + ".range", text + " is inverted (expected: first <= last)");
            } else if (last >= t.space()) {
                add(path + ".range", text + " is outside the key space (expected: within " + within + ")");
            } else {
                valid.add(i);
            }
            String unit = b.rangeUnits.get(i);
            if (!unitIndex.containsKey(unit)) {
                add(path + ".unit", "unknown unit '" + unit + "'" + expectedOneOf(unitIndex.keySet()));
            }
        }
        checkCoverage(valid, within);
    }

    /** Overlaps (naming both ranges) and gaps, in key order over the well-formed ranges. */
    private void checkCoverage(List<Integer> valid, String within) {
        if (valid.isEmpty()) {
            return;
        }
        valid.sort((x, y) -> {
            int c = Long.compare(b.bounds.get(x)[0], b.bounds.get(y)[0]);
            return c != 0 ? c : Integer.compare(x, y);
        });
        String expected = within != null ? "ranges covering exactly " + within : "contiguous ranges";
        int reach = valid.get(0); // the range reaching furthest so far
        long first0 = b.bounds.get(reach)[0];
        if (within != null && first0 > 0) {
            add("ranges", "keys 0~" + (first0 - 1) + " are in no range (expected: " + expected + ")");
        }
        for (int k = 1; k < valid.size(); k++) {
            int i = valid.get(k);
            long first = b.bounds.get(i)[0];
            long reachLast = b.bounds.get(reach)[1];
            if (first <= reachLast) {
                int later = Math.max(i, reach);
                int earlier = Math.min(i, reach);
                add("ranges[" + later + "]", describe(later) + " overlaps " + describe(earlier) + " of unit "
                                             + b.rangeUnits.get(earlier));
            } else if (first > reachLast + 1) {
                add("ranges[" + i + "]", "keys " + (reachLast + 1) + "~" + (first - 1) + " between "
                        + describe(reach) + " and " + describe(i) + " are in no range (expected: " + expected + ")");
            }
            if (b.bounds.get(i)[1] > reachLast) {
                reach = i;
            }
        }
        long end = b.bounds.get(reach)[1];
        if (within != null && end < b.transform.space() - 1) {
            add("ranges", "keys " + (end + 1) + "~" + (b.transform.space() - 1) + " are in no range (expected: "
                          + expected + ")");
        }
    }

    private String describe(int range) {
        return b.bounds.get(range)[0] + "~" + b.bounds.get(range)[1];
    }

    private void checkDomains() {
        boolean readsDomains = b.sources.stream().anyMatch(s -> s.kind() == KeySource.Kind.DOMAIN_PREFIX);
        if (readsDomains && b.domainPrefixes.isEmpty()) {
            add("domains", "{} (expected: domain prefixes mapped to units, for key source domain-prefix)");
        } else if (!readsDomains && !b.domainPrefixes.isEmpty()) {
            add("domains", b.domainPrefixes.size() + " domain prefixes, but key.sources has no domain-prefix source"
                           + " (expected: {domain-prefix: true} in key.sources, or no domains)");
        }
        Map<String, String> seen = new HashMap<>();
        for (int i = 0; i < b.domainPrefixes.size(); i++) {
            String prefix = b.domainPrefixes.get(i);
            String path = "domains." + prefix;
            if (prefix == null || !DNS_LABEL.matcher(prefix).matches()) {
                add(path, "'" + prefix + "' is not a domain prefix (expected: one DNS label: letters, digits, '-')");
                continue;
            }
            String first = seen.putIfAbsent(prefix.toLowerCase(Locale.ROOT), prefix);
            if (first != null) {
                add(path, "duplicate domain prefix '" + prefix.toLowerCase(Locale.ROOT) + "' (first at domains."
                          + first + ")");
            }
            String unit = b.domainUnits.get(i);
            if (!unitIndex.containsKey(unit)) {
                add(path, "unknown unit '" + unit + "'" + expectedOneOf(unitIndex.keySet()));
            }
        }
    }

    private void checkGray() {
        b.gray.forEach((unit, rules) -> {
            String path = "gray." + unit;
            if (!unitIndex.containsKey(unit)) {
                add(path, "unknown unit '" + unit + "'" + expectedOneOf(unitIndex.keySet()));
            }
            int fallback = -1;
            for (int i = 0; i < rules.size(); i++) {
                if (fallback >= 0) {
                    add(path + "[" + i + "]", rules.get(i) + " is unreachable after the fallback route at " + path
                            + "[" + fallback + "] (expected: the rule without 'when' last)");
                } else if (rules.get(i).isFallback()) {
                    fallback = i;
                }
            }
        });
    }

    /** {@code " (expected one of: a, b, c)"}, shortened for long lists. */
    static String expectedOneOf(Collection<String> choices) {
        List<String> list = new ArrayList<>(choices);
        if (list.isEmpty()) {
            return " (expected: none is defined)";
        }
        String shown = String.join(", ", list.subList(0, Math.min(list.size(), LISTED_CHOICES)));
        return " (expected one of: " + shown + (list.size() > LISTED_CHOICES ? ", ..." : "") + ")";
    }
}
