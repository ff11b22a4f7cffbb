package io.unitas.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.Problem;
import io.unitas.core.Topology;

/**
 * Reads a topology from YAML or JSON (chosen by the file's extension):
 * <pre>
 * regions:            # listed order = the global fallback order
 *   - id: cn
 *     capacity: 1000  # optional
 *   - id: eu
 *   - us              # a bare id works too
 * fallback:           # optional, per home: its ordered list of other regions
 *   us: [eu, cn]
 * center: cn          # optional
 * </pre>
 * Every problem is reported at once, each as {@code file:line: path: message}.
 */
public final class TopologyFile {

    private static final Set<String> FIELDS = Set.of("regions", "fallback", "center");
    private static final Set<String> REGION_FIELDS = Set.of("id", "capacity");

    private TopologyFile() {}

    /** Reads and validates {@code file}. @throws ConfigException listing every problem */
    public static Topology read(Path file) {
        return parse(ConfigDocument.read(file));
    }

    /** Validates an already parsed document. @throws ConfigException listing every problem */
    public static Topology parse(ConfigDocument doc) {
        List<Problem> problems = new ArrayList<>();
        Topology.Builder builder = Topology.builder();
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "not a mapping (expected: regions, and optionally fallback and center)");
        }
        problems.addAll(ConfigDocument.unknownFields(root, "", FIELDS));
        JsonNode regions = root.path("regions");
        if (!regions.isArray()) {
            problems.add(new Problem("regions", regions.isMissingNode() ? "missing (expected: a list of regions)"
                                                                        : "not a list (expected: a list of regions)"));
        } else {
            for (int i = 0; i < regions.size(); i++) {
                region(regions.get(i), "regions[" + i + "]", builder, problems);
            }
        }
        JsonNode fallback = root.path("fallback");
        if (fallback.isObject()) {
            for (Map.Entry<String, JsonNode> e : fallback.properties()) {
                String path = "fallback." + e.getKey();
                List<String> list = new ArrayList<>();
                if (!e.getValue().isArray()) {
                    problems.add(new Problem(path, "not a list (expected: a list of region ids)"));
                    continue;
                }
                for (int i = 0; i < e.getValue().size(); i++) {
                    list.add(text(e.getValue().get(i), path + "[" + i + "]", problems));
                }
                builder.fallback(e.getKey(), list);
            }
        } else if (!fallback.isMissingNode() && !fallback.isNull()) {
            problems.add(new Problem("fallback", "not a mapping (expected: home region id -> list of region ids)"));
        }
        JsonNode center = root.path("center");
        if (!center.isMissingNode() && !center.isNull()) {
            builder.center(text(center, "center", problems));
        }
        if (problems.isEmpty()) {
            problems.addAll(builder.problems());
        }
        if (!problems.isEmpty()) {
            throw doc.errors(problems);
        }
        return builder.build();
    }

    private static void region(JsonNode node, String path, Topology.Builder builder, List<Problem> problems) {
        if (node.isTextual()) {
            builder.region(node.asText());
            return;
        }
        if (!node.isObject()) {
            problems.add(new Problem(path, "not a region (expected: an id, or a mapping with id and capacity)"));
            return;
        }
        problems.addAll(ConfigDocument.unknownFields(node, path + ".", REGION_FIELDS));
        String id = node.has("id") ? text(node.get("id"), path + ".id", problems) : null;
        if (id == null && !node.has("id")) {
            problems.add(new Problem(path + ".id", "missing (expected: a region id)"));
        }
        Double capacity = null;
        JsonNode c = node.path("capacity");
        if (c.isNumber()) {
            capacity = c.asDouble();
        } else if (!c.isMissingNode() && !c.isNull()) {
            problems.add(new Problem(path + ".capacity", "'" + c.asText() + "' (expected: a number >= 0)"));
        }
        builder.region(id, capacity);
    }

    private static String text(JsonNode node, String path, List<Problem> problems) {
        if (node.isTextual()) {
            return node.asText();
        }
        problems.add(new Problem(path, node + " (expected: a region id)"));
        return null;
    }
}
