package io.unitas.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.internal.DocumentReader;
import io.unitas.core.Region;
import io.unitas.core.ServiceKind;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.consistency.ConsistencyLevel;
import io.unitas.core.consistency.Declaration;
import io.unitas.core.consistency.Location;
import io.unitas.core.consistency.MergePolicyName;
import io.unitas.core.consistency.ResidencyGroup;
import io.unitas.core.consistency.UnitResidency;
import io.unitas.core.consistency.WriteScope;

/**
 * Reads a consistency contract (docs/consistency.md) from YAML or JSON, in either of two forms. The file of its own,
 * beside the unit rules:
 * <pre>
 * residency:                        # optional: compliance boundaries, each a list of regions
 *   eu-personal-data: [eu, eu2]
 * units:                            # optional: units whose users' data stays in a residency group
 *   u-paris: eu-personal-data
 * entities:                         # and/or services: (the same keys)
 *   orders:
 *     kind: core                    # core (default) | global | shared
 *     consistency: strong           # strong | bounded-staleness | eventual
 *     money_or_legal: true          # default false
 *     idempotent: true              # default false
 *   cart:
 *     consistency: eventual
 *     merge: or-map                 # lww | pn-counter | or-set | or-map | siblings
 *     writes: any                   # home (core's default) | center (global's and shared's) | any
 *     residency: eu-personal-data
 *   prices:
 *     kind: shared
 *     consistency: bounded-staleness
 *     staleness_budget: 5s          # required with bounded-staleness, and only there
 *   catalog:
 *     kind: global
 *     consistency: strong
 *     region: cn                    # global only: where it runs (default: the center)
 * </pre>
 * Or an OpenAPI document (a root with {@code openapi}), whose operations ({@code paths.P.METHOD}) and schemas
 * ({@code components.schemas.NAME}) declare the same keys as extensions: {@code x-consistency-level},
 * {@code x-staleness-budget}, {@code x-service-kind}, {@code x-money-or-legal}, {@code x-idempotent},
 * {@code x-merge-policy}, {@code x-writes}, {@code x-region}, {@code x-residency}; the root may hold
 * {@code x-residency-groups} and {@code x-unit-residency}. An operation or schema with none of them is not declared;
 * an operation's {@code x-idempotent} defaults to its method's (GET, HEAD, OPTIONS, TRACE, PUT and DELETE are
 * idempotent, RFC 9110 9.2.2).
 *
 * <p>Every problem is reported at once, each as {@code file:line: path: message}. Names that point elsewhere (regions,
 * units, groups) are checked by {@link ConsistencyContract#problems} against the topology and rules.
 */
public final class ConsistencyFile {

    private static final List<String> FIELDS = List.of("residency", "units", "entities", "services");
    private static final List<String> ENTRY_FIELDS = List.of("kind", "consistency", "staleness_budget",
            "money_or_legal", "idempotent", "merge", "writes", "region", "residency");
    /** The OpenAPI extension of each key of the file's own form. */
    private static final Map<String, String> EXTENSIONS = extensions();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch",
                                                      "trace");
    private static final Set<String> IDEMPOTENT_METHODS = Set.of("get", "head", "options", "trace", "put", "delete");

    private ConsistencyFile() {}

    private static Map<String, String> extensions() {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("kind", "x-service-kind");
        m.put("consistency", "x-consistency-level");
        m.put("staleness_budget", "x-staleness-budget");
        m.put("money_or_legal", "x-money-or-legal");
        m.put("idempotent", "x-idempotent");
        m.put("merge", "x-merge-policy");
        m.put("writes", "x-writes");
        m.put("region", "x-region");
        m.put("residency", "x-residency");
        return java.util.Collections.unmodifiableMap(m);
    }

    /** Reads {@code file} in either form. @throws ConfigException listing every problem */
    public static ConsistencyContract read(Path file) {
        return parse(ConfigDocument.read(file));
    }

    /** Reads a parsed document in either form. @throws ConfigException listing every problem */
    public static ConsistencyContract parse(ConfigDocument doc) {
        try {
            return new Reader(doc).contract();
        } catch (ConfigException e) {
            // Keys are read in a fixed order, not the file's: list the problems in line order, as the file reads.
            List<String> inLineOrder = new ArrayList<>(e.problems());
            inLineOrder.sort(java.util.Comparator.comparingInt(line -> lineOf(doc, line)));
            throw new ConfigException(inLineOrder);
        }
    }

    /** The line number a problem of {@code doc} names ({@code file:12: ...}), or 0. */
    private static int lineOf(ConfigDocument doc, String problem) {
        int from = doc.name().length() + 1;
        int to = from;
        while (to < problem.length() && Character.isDigit(problem.charAt(to))) {
            to++;
        }
        return problem.startsWith(doc.name() + ":") && to > from ? Integer.parseInt(problem.substring(from, to)) : 0;
    }

    private static final class Reader extends DocumentReader {
        private final List<Declaration> declarations = new ArrayList<>();
        private final List<ResidencyGroup> groups = new ArrayList<>();
        private final List<UnitResidency> units = new ArrayList<>();

        Reader(ConfigDocument doc) {
            super(doc);
        }

        private Location location(String path) {
            return new Location(doc.name(), doc.lineOf(path), path);
        }

        ConsistencyContract contract() {
            JsonNode root = doc.root();
            if (!root.isObject()) {
                throw doc.error("", "not a mapping (expected: entities or services, and optionally residency and "
                                    + "units; or an OpenAPI document)");
            }
            if (root.has("openapi")) {
                openApi(root);
            } else {
                unknownKeys(root, "", FIELDS);
                groups(root.get("residency"), "residency");
                units(root.get("units"), "units");
                for (String section : List.of("entities", "services")) {
                    JsonNode entries = mapping(root.get(section), section, "NAME: {consistency, ...}");
                    for (Map.Entry<String, JsonNode> e : entries.properties()) {
                        String path = section + "." + e.getKey();
                        JsonNode node = e.getValue();
                        if (!node.isObject()) {
                            problem(path, "not a mapping (expected: " + String.join(", ", ENTRY_FIELDS) + ")");
                            continue;
                        }
                        unknownKeys(node, path, ENTRY_FIELDS);
                        Map<String, String> keyPaths = new HashMap<>();
                        Map<String, JsonNode> values = new HashMap<>();
                        for (String key : ENTRY_FIELDS) {
                            keyPaths.put(key, path + "." + key);
                            if (node.has(key)) {
                                values.put(key, node.get(key));
                            }
                        }
                        declaration(e.getKey(), path, keyPaths, values, false);
                    }
                }
                if (!root.has("entities") && !root.has("services")) {
                    problem("", "no entities or services (expected: at least one declaration)");
                }
            }
            throwIfProblems();
            return new ConsistencyContract(declarations, groups, units);
        }

        private void openApi(JsonNode root) {
            groups(root.get("x-residency-groups"), "x-residency-groups");
            units(root.get("x-unit-residency"), "x-unit-residency");
            JsonNode paths = root.path("paths");
            if (paths.isObject()) {
                for (Map.Entry<String, JsonNode> p : paths.properties()) {
                    if (!p.getValue().isObject()) {
                        continue;
                    }
                    for (Map.Entry<String, JsonNode> m : p.getValue().properties()) {
                        if (METHODS.contains(m.getKey()) && m.getValue().isObject()) {
                            String path = "paths." + p.getKey() + "." + m.getKey();
                            JsonNode id = m.getValue().get("operationId");
                            String name = id != null && id.isTextual() ? id.asText()
                                    : m.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey();
                            extensions(name, path, m.getValue(), IDEMPOTENT_METHODS.contains(m.getKey()));
                        }
                    }
                }
            }
            JsonNode schemas = root.path("components").path("schemas");
            if (schemas.isObject()) {
                for (Map.Entry<String, JsonNode> s : schemas.properties()) {
                    if (s.getValue().isObject()) {
                        extensions(s.getKey(), "components.schemas." + s.getKey(), s.getValue(), false);
                    }
                }
            }
            if (declarations.isEmpty() && !hasProblems()) {
                problem("", "no operation or schema declares x-consistency-level (expected: at least one)");
            }
        }

        private void extensions(String name, String path, JsonNode node, boolean idempotentByMethod) {
            Map<String, String> keyPaths = new HashMap<>();
            Map<String, JsonNode> values = new HashMap<>();
            EXTENSIONS.forEach((key, ext) -> {
                keyPaths.put(key, path + "." + ext);
                if (node.has(ext)) {
                    values.put(key, node.get(ext));
                }
            });
            if (values.isEmpty()) {
                return;
            }
            if (idempotentByMethod && !values.containsKey("idempotent")) {
                values.put("idempotent", BooleanNode.TRUE);
            }
            declaration(name, path, keyPaths, values, true);
        }

        /** One declaration from its values by key; {@code keyPaths} says where each key is (or would be). */
        private void declaration(String name, String path, Map<String, String> keyPaths, Map<String, JsonNode> values,
                                 boolean openApi) {
            java.util.function.Function<String, String> shown = key -> openApi ? EXTENSIONS.get(key) : key;
            ServiceKind kind = ServiceKind.CORE;
            String kindText = text(values.get("kind"), keyPaths.get("kind"), null);
            if (kindText != null) {
                kind = ServiceKind.ofLabel(kindText);
                if (kind == null) {
                    problem(keyPaths.get("kind"), "'" + kindText + "' (expected: core, global or shared)");
                }
            }
            ConsistencyLevel level = null;
            String levelText = text(values.get("consistency"), keyPaths.get("consistency"), null);
            if (levelText == null) {
                if (!values.containsKey("consistency")) {
                    problem(path, shown.apply("consistency") + " missing (expected: strong, bounded-staleness or "
                                  + "eventual)");
                } else if (values.get("consistency").isNull()) {
                    problem(keyPaths.get("consistency"), "empty (expected: strong, bounded-staleness or eventual)");
                }
            } else {
                level = ConsistencyLevel.ofLabel(levelText);
                if (level == null) {
                    problem(keyPaths.get("consistency"), "'" + levelText
                                                         + "' (expected: strong, bounded-staleness or eventual)");
                }
            }
            Duration budget = durationOrZero(values.get("staleness_budget"), keyPaths.get("staleness_budget"), null);
            String budgetExpected = "(expected: with bounded-staleness, how stale a read may be, like 500ms or 5s)";
            if (level == ConsistencyLevel.BOUNDED_STALENESS && budget == null
                && !values.containsKey("staleness_budget")) {
                problem(path, shown.apply("staleness_budget") + " missing " + budgetExpected);
            } else if (level == ConsistencyLevel.BOUNDED_STALENESS && budget == null
                       && values.get("staleness_budget").isNull()) {
                problem(keyPaths.get("staleness_budget"), "empty " + budgetExpected);
            } else if (level != null && level != ConsistencyLevel.BOUNDED_STALENESS
                       && values.containsKey("staleness_budget")) {
                problem(keyPaths.get("staleness_budget"), "given with " + level.label()
                                                          + " (expected: only with bounded-staleness)");
                budget = null;
            }
            boolean money = bool(values.get("money_or_legal"), keyPaths.get("money_or_legal"), false);
            boolean idempotent = bool(values.get("idempotent"), keyPaths.get("idempotent"), false);
            MergePolicyName merge = null;
            String mergeText = text(values.get("merge"), keyPaths.get("merge"), null);
            if (mergeText != null) {
                merge = MergePolicyName.ofLabel(mergeText);
                if (merge == null) {
                    problem(keyPaths.get("merge"), "'" + mergeText
                                                   + "' (expected: lww, pn-counter, or-set, or-map or siblings)");
                }
            }
            WriteScope writes = null;
            String writesText = text(values.get("writes"), keyPaths.get("writes"), null);
            if (writesText != null) {
                writes = WriteScope.ofLabel(writesText);
                if (writes == null) {
                    problem(keyPaths.get("writes"), "'" + writesText + "' (expected: home, center or any)");
                }
            }
            Region region = null;
            String regionText = text(values.get("region"), keyPaths.get("region"), null);
            if (regionText != null) {
                if (!Region.isValidId(regionText)) {
                    problem(keyPaths.get("region"), "'" + regionText + "' (expected: a region id)");
                } else if (kind != ServiceKind.GLOBAL) {
                    problem(keyPaths.get("region"), "given for a " + (kind == null ? "non-global" : kind.label())
                                                    + " service (expected: only with kind global; core and shared "
                                                    + "services run in every region)");
                } else {
                    region = Region.of(regionText);
                }
            }
            String residency = text(values.get("residency"), keyPaths.get("residency"), null);
            if (kind == null || level == null || hasProblems()) {
                return;
            }
            Map<String, Location> fields = new HashMap<>();
            values.keySet().forEach(key -> fields.put(key, location(keyPaths.get(key))));
            declarations.add(new Declaration(name, kind, level, budget, money, idempotent, merge,
                                             writes == null ? WriteScope.defaultFor(kind) : writes, region,
                                             residency, location(path), fields));
        }

        /** {@code node} as a mapping of names the document chooses; empty when absent, a problem when not a mapping. */
        private JsonNode mapping(JsonNode node, String path, String expected) {
            if (node != null && !node.isNull() && !node.isObject()) {
                problem(path, "not a mapping (expected: " + expected + ")");
                return JsonNodeFactory.instance.objectNode();
            }
            return node == null || node.isNull() ? JsonNodeFactory.instance.objectNode() : node;
        }

        private void groups(JsonNode node, String path) {
            for (Map.Entry<String, JsonNode> e : mapping(node, path, "GROUP: [REGION, ...]").properties()) {
                String at = path + "." + e.getKey();
                if (!e.getValue().isArray() || e.getValue().isEmpty()) {
                    problem(at, e.getValue() + " (expected: a list of at least one region id)");
                    continue;
                }
                List<Region> regions = new ArrayList<>();
                for (int i = 0; i < e.getValue().size(); i++) {
                    String id = text(e.getValue().get(i), at + "[" + i + "]", null);
                    if (Region.isValidId(id)) {
                        regions.add(Region.of(id));
                    } else if (id != null) {
                        problem(at + "[" + i + "]", "'" + id + "' (expected: a region id)");
                    }
                }
                groups.add(new ResidencyGroup(e.getKey(), regions, location(at)));
            }
        }

        private void units(JsonNode node, String path) {
            for (Map.Entry<String, JsonNode> e : mapping(node, path, "UNIT: GROUP").properties()) {
                String at = path + "." + e.getKey();
                String group = text(e.getValue(), at, null);
                if (group == null) {
                    problem(at, "missing (expected: the name of a residency group)");
                } else {
                    units.add(new UnitResidency(e.getKey(), group, location(at)));
                }
            }
        }
    }
}
