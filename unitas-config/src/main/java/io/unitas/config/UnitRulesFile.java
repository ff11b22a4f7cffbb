package io.unitas.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.Problem;
import io.unitas.core.Topology;
import io.unitas.core.rules.GrayRule;
import io.unitas.core.rules.KeyRange;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.MissingKeyAction;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.rules.UnitStrategy;

/**
 * Reads unit rules from YAML or JSON (chosen by the file's extension) and validates them as a whole against a
 * topology:
 * <pre>
 * units:
 *   - {id: u-cn, region: cn}
 *   - {id: u-eu, region: eu}
 * key:
 *   sources: [{header: x-user-id}, {path: /wallets/{userId}}, {query: user_id}, {domain-prefix: true}]
 *   transform: mod 10000      # none | mod N | hash-mod N
 *   missing: reject           # reject | center
 * ranges:
 *   - {range: 0~4999, unit: u-cn}
 *   - {range: 5000~9999, unit: u-eu}
 * domains: {shanghai: u-cn, paris: u-eu}
 * gray:
 *   u-cn:
 *     - {when: {header: x-version, equals: "1.1"}, version: "1.1"}
 *     - {version: "1.0"}
 * </pre>
 * Every problem is reported at once, in line order, each as {@code file:line: path: message}.
 */
public final class UnitRulesFile {

    private static final Set<String> FIELDS = Set.of("units", "key", "ranges", "domains", "gray");
    private static final Set<String> UNIT_FIELDS = Set.of("id", "region", "load");
    private static final Set<String> KEY_FIELDS = Set.of("sources", "transform", "missing");
    private static final Set<String> RANGE_FIELDS = Set.of("range", "unit");
    private static final Set<String> GRAY_FIELDS = Set.of("when", "version");
    private static final Set<String> WHEN_FIELDS = Set.of("header", "equals");
    private static final String SOURCE_KINDS = "header, cookie, query, path, domain-prefix or strategy";

    private UnitRulesFile() {}

    /** Reads {@code file} and validates it against {@code topology}. @throws ConfigException listing every problem */
    public static UnitRules read(Path file, Topology topology) {
        return parse(ConfigDocument.read(file), topology);
    }

    /**
     * Parses {@code text} in the file format ({@code *.json} is JSON, any other {@code name} YAML), naming it
     * {@code name} in errors, and validates it against {@code topology}. @throws ConfigException listing every problem
     */
    public static UnitRules parse(String name, String text, Topology topology) {
        return parse(ConfigDocument.parse(name, text), topology);
    }

    /** Validates a parsed document against {@code topology}. @throws ConfigException listing every problem */
    public static UnitRules parse(ConfigDocument doc, Topology topology) {
        return parse(doc, topology, UnitStrategy.installed());
    }

    /**
     * Validates a parsed document against {@code topology}, with {@code strategies} as the only strategies a
     * {@code {strategy: NAME}} source may name. @throws ConfigException listing every problem
     */
    public static UnitRules parse(ConfigDocument doc, Topology topology, Map<String, UnitStrategy> strategies) {
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "not a mapping (expected: units, key, ranges, and optionally domains and gray)");
        }
        List<Problem> problems = new ArrayList<>();
        UnitRules.Builder builder = UnitRules.builder().strategies(strategies);
        new Reader(builder, problems).document(root);
        problems.addAll(builder.problems(topology));
        if (!problems.isEmpty()) {
            List<Problem> inLineOrder = new ArrayList<>(problems);
            inLineOrder.sort(Comparator.comparingInt(p -> doc.lineOf(p.path())));
            throw doc.errors(inLineOrder);
        }
        return builder.build(topology);
    }

    /**
     * {@code rules} as a tree in the file's format, the inverse of {@link #parse}: what the control plane stores and
     * serves. Empty {@code domains} and {@code gray} are left out.
     */
    public static ObjectNode toTree(UnitRules rules) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        ArrayNode units = root.putArray("units");
        for (Unit unit : rules.units()) {
            ObjectNode u = units.addObject().put("id", unit.id()).put("region", unit.home().id());
            rules.load(unit.id()).ifPresent(load -> u.put("load", load));
        }
        ObjectNode key = root.putObject("key");
        ArrayNode sources = key.putArray("sources");
        for (KeySource source : rules.sources()) {
            ObjectNode s = sources.addObject();
            if (source.kind() == KeySource.Kind.DOMAIN_PREFIX) {
                s.put(source.kind().label(), true);
            } else {
                s.put(source.kind().label(), source.name());
            }
        }
        key.put("transform", rules.transform().toString());
        key.put("missing", rules.missing().label());
        ArrayNode ranges = root.putArray("ranges");
        rules.ranges().forEach(r -> ranges.addObject().put("range", r.range().toString()).put("unit", r.unit()));
        if (!rules.domains().isEmpty()) {
            ObjectNode domains = root.putObject("domains");
            rules.domains().forEach(domains::put);
        }
        if (!rules.gray().isEmpty()) {
            ObjectNode gray = root.putObject("gray");
            rules.gray().forEach((unit, list) -> {
                ArrayNode rulesOfUnit = gray.putArray(unit);
                for (GrayRule rule : list) {
                    ObjectNode r = rulesOfUnit.addObject();
                    if (!rule.isFallback()) {
                        r.putObject("when").put("header", rule.when().header()).put("equals", rule.when().equals());
                    }
                    r.put("version", rule.version());
                }
            });
        }
        return root;
    }

    /** Walks the tree into the builder; what does not fit becomes a problem at its path. */
    private record Reader(UnitRules.Builder builder, List<Problem> problems) {

        void document(JsonNode root) {
            unknownFields(root, "", FIELDS);
            for (Indexed unit : list(root.path("units"), "units", "a list of units, each {id, region}", true)) {
                if (object(unit.node(), unit.path(), "{id: UNIT, region: REGION, load: N}", UNIT_FIELDS)) {
                    builder.unit(required(unit.node(), unit.path(), "id", "a unit id"),
                                 required(unit.node(), unit.path(), "region", "a region id"),
                                 load(unit.node().path("load"), unit.path() + ".load"));
                }
            }
            JsonNode key = root.path("key");
            if (object(key, "key", "{sources, transform, missing}", KEY_FIELDS)) {
                key(key);
            }
            for (Indexed range : list(root.path("ranges"), "ranges", "a list of {range: FIRST~LAST, unit: UNIT}", false)) {
                range(range);
            }
            JsonNode domains = root.path("domains");
            if (!absent(domains) && object(domains, "domains", "{PREFIX: UNIT, ...}", null)) {
                for (Map.Entry<String, JsonNode> e : domains.properties()) {
                    builder.domain(e.getKey(), scalar(e.getValue(), "domains." + e.getKey(), "a unit id"));
                }
            }
            JsonNode gray = root.path("gray");
            if (!absent(gray) && object(gray, "gray", "{UNIT: [rules], ...}", null)) {
                for (Map.Entry<String, JsonNode> e : gray.properties()) {
                    gray(e.getKey(), e.getValue());
                }
            }
        }

        private void key(JsonNode key) {
            for (Indexed source : list(key.path("sources"), "key.sources", "a list of {" + SOURCE_KINDS + ": ...}", false)) {
                KeySource parsed = source(source);
                if (parsed != null) {
                    builder.source(parsed);
                }
            }
            JsonNode transform = key.path("transform");
            if (!absent(transform)) {
                try {
                    String text = scalar(transform, "key.transform", "none, mod N or hash-mod N");
                    if (text != null) {
                        builder.transform(KeyTransform.parse(text));
                    }
                } catch (IllegalArgumentException e) {
                    problems.add(new Problem("key.transform", e.getMessage()));
                }
            }
            JsonNode missing = key.path("missing");
            if (!absent(missing)) {
                MissingKeyAction action = MissingKeyAction.ofLabel(missing.asText());
                if (action == null || !missing.isTextual()) {
                    problems.add(new Problem("key.missing", "'" + missing.asText() + "' (expected: reject or center)"));
                } else {
                    builder.missing(action);
                }
            }
        }

        private KeySource source(Indexed source) {
            JsonNode node = source.node();
            if (!node.isObject() || node.size() != 1) {
                problems.add(new Problem(source.path(), node + " (expected: one of {" + SOURCE_KINDS + ": ...})"));
                return null;
            }
            Map.Entry<String, JsonNode> only = node.properties().iterator().next();
            String path = source.path() + "." + only.getKey();
            JsonNode value = only.getValue();
            if (only.getKey().equals("domain-prefix")) {
                if (!value.isBoolean() || !value.asBoolean()) {
                    problems.add(new Problem(path, value + " (expected: true)"));
                    return null;
                }
                return KeySource.domainPrefix();
            }
            String name = scalar(value, path, "a name");
            if (name == null) {
                return null;
            }
            try {
                return switch (only.getKey()) {
                    case "header" -> KeySource.header(name);
                    case "cookie" -> KeySource.cookie(name);
                    case "query" -> KeySource.query(name);
                    case "path" -> KeySource.path(name);
                    case "strategy" -> KeySource.strategy(name);
                    default -> {
                        problems.add(new Problem(path, "unknown source (expected one of: " + SOURCE_KINDS + ")"));
                        yield null;
                    }
                };
            } catch (IllegalArgumentException e) {
                problems.add(new Problem(path, only.getKey().equals("path") ? e.getMessage()
                                                                            : "'" + name + "' (expected: a non-blank name)"));
                return null;
            }
        }

        private void range(Indexed range) {
            if (!object(range.node(), range.path(), "{range: FIRST~LAST, unit: UNIT}", RANGE_FIELDS)) {
                return;
            }
            String text = required(range.node(), range.path(), "range", "FIRST~LAST");
            String unit = required(range.node(), range.path(), "unit", "a unit id");
            if (text == null) {
                return;
            }
            try {
                builder.range(KeyRange.parse(text), unit);
            } catch (IllegalArgumentException e) {
                problems.add(new Problem(range.path() + ".range", e.getMessage()));
            }
        }

        private void gray(String unit, JsonNode rules) {
            String path = "gray." + unit;
            List<GrayRule> parsed = new ArrayList<>();
            for (Indexed rule : list(rules, path, "a list of {when: {header, equals}, version}", true)) {
                if (!object(rule.node(), rule.path(), "{when: {header: H, equals: V}, version: V}", GRAY_FIELDS)) {
                    continue;
                }
                String version = required(rule.node(), rule.path(), "version", "a version");
                JsonNode when = rule.node().path("when");
                String whenPath = rule.path() + ".when";
                if (absent(when)) {
                    if (version != null) {
                        parsed.add(GrayRule.otherwise(version));
                    }
                } else if (object(when, whenPath, "{header: H, equals: V}", WHEN_FIELDS)) {
                    String header = required(when, whenPath, "header", "a header name");
                    String equals = required(when, whenPath, "equals", "the value to match");
                    if (version != null && header != null && equals != null) {
                        parsed.add(GrayRule.when(header, equals, version));
                    }
                }
            }
            builder.gray(unit, parsed);
        }

        /** The elements of the list {@code node} at {@code path}, with their paths; absent is empty unless required. */
        private List<Indexed> list(JsonNode node, String path, String expected, boolean required) {
            List<Indexed> items = new ArrayList<>();
            if (absent(node)) {
                if (required) {
                    problems.add(new Problem(path, "missing (expected: " + expected + ")"));
                }
                return items;
            }
            if (!node.isArray()) {
                problems.add(new Problem(path, "not a list (expected: " + expected + ")"));
                return items;
            }
            for (int i = 0; i < node.size(); i++) {
                items.add(new Indexed(node.get(i), path + "[" + i + "]"));
            }
            return items;
        }

        private boolean object(JsonNode node, String path, String expected, Set<String> fields) {
            if (!node.isObject()) {
                problems.add(new Problem(path, (absent(node) ? "missing" : "not a mapping") + " (expected: "
                                               + expected + ")"));
                return false;
            }
            if (fields != null) {
                unknownFields(node, path.isEmpty() ? "" : path + ".", fields);
            }
            return true;
        }

        private String required(JsonNode object, String path, String field, String expected) {
            JsonNode value = object.path(field);
            if (absent(value)) {
                problems.add(new Problem(path + "." + field, "missing (expected: " + expected + ")"));
                return null;
            }
            return scalar(value, path + "." + field, expected);
        }

        private Double load(JsonNode load, String path) {
            if (absent(load)) {
                return null;
            }
            if (!load.isNumber()) {
                problems.add(new Problem(path, load + " (expected: a number >= 0)"));
                return null;
            }
            return load.asDouble();
        }

        /** A string, number or boolean as text; anything else is a problem. */
        private String scalar(JsonNode value, String path, String expected) {
            if (value.isValueNode() && !value.isNull()) {
                return value.asText();
            }
            problems.add(new Problem(path, value + " (expected: " + expected + ")"));
            return null;
        }

        private void unknownFields(JsonNode object, String prefix, Set<String> known) {
            problems.addAll(ConfigDocument.unknownFields(object, prefix, known));
        }

        private static boolean absent(JsonNode node) {
            return node.isMissingNode() || node.isNull();
        }
    }

    private record Indexed(JsonNode node, String path) {}
}
