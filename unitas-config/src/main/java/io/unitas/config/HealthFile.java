package io.unitas.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;

/**
 * Reads a health snapshot of a topology's regions from JSON (or YAML): each region id maps to a plain flag or to
 * the fields of {@link RegionHealth}, only {@code healthy} required:
 * <pre>
 * {"cn": false,
 *  "eu": {"healthy": true, "writable": true, "replication_lag_ms": 120, "score": 0.9, "reasons": []}}
 * </pre>
 * A region left out is unhealthy; a key that names no region of the topology is a problem.
 */
public final class HealthFile {

    private static final Set<String> FIELDS = Set.of("healthy", "writable", "replication_lag_ms", "score", "reasons");

    private HealthFile() {}

    /** Reads {@code file} against {@code topology}. @throws ConfigException listing every problem */
    public static HealthSnapshot read(Path file, Topology topology) {
        return parse(ConfigDocument.read(file), topology);
    }

    /** Validates an already parsed document against {@code topology}. @throws ConfigException listing every problem */
    public static HealthSnapshot parse(ConfigDocument doc, Topology topology) {
        JsonNode root = doc.root();
        if (!root.isObject()) {
            throw doc.error("", "not a mapping (expected: region id -> true, false or {\"healthy\": ...})");
        }
        List<Problem> problems = new ArrayList<>();
        Map<Region, RegionHealth> regions = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : root.properties()) {
            Optional<Region> region = topology.region(e.getKey());
            if (region.isEmpty()) {
                problems.add(new Problem(e.getKey(), "unknown region '" + e.getKey() + "' (expected one of: "
                        + String.join(", ", topology.regions().stream().map(Region::id).toList()) + ")"));
                continue;
            }
            RegionHealth health = health(e.getValue(), e.getKey(), problems);
            if (health != null) {
                regions.put(region.get(), health);
            }
        }
        if (!problems.isEmpty()) {
            throw doc.errors(problems);
        }
        return HealthSnapshot.of(regions);
    }

    private static RegionHealth health(JsonNode node, String path, List<Problem> problems) {
        if (node.isBoolean()) {
            return RegionHealth.of(node.booleanValue());
        }
        if (!node.isObject()) {
            problems.add(new Problem(path, node + " (expected: true, false or {\"healthy\": ...})"));
            return null;
        }
        int before = problems.size();
        problems.addAll(ConfigDocument.unknownFields(node, path + ".", FIELDS));
        JsonNode healthy = node.path("healthy");
        if (!healthy.isBoolean()) {
            problems.add(new Problem(path + ".healthy", (healthy.isMissingNode() ? "missing" : healthy.toString())
                    + " (expected: true or false)"));
            return null;
        }
        boolean up = healthy.booleanValue();
        boolean writable = flag(node, path, "writable", up, problems);
        long lag = RegionHealth.UNKNOWN_LAG;
        JsonNode l = node.path("replication_lag_ms");
        if (!l.isMissingNode() && !l.isNull()) {
            if (l.canConvertToExactIntegral() && l.asLong() >= RegionHealth.UNKNOWN_LAG) {
                lag = l.asLong();
            } else {
                problems.add(new Problem(path + ".replication_lag_ms", l + " (expected: an integer >= 0, or -1 for unknown)"));
            }
        }
        double score = up ? 1.0 : 0.0;
        JsonNode s = node.path("score");
        if (!s.isMissingNode() && !s.isNull()) {
            if (s.isNumber() && s.asDouble() >= 0 && s.asDouble() <= 1) {
                score = s.asDouble();
            } else {
                problems.add(new Problem(path + ".score", s + " (expected: a number from 0 to 1)"));
            }
        }
        List<String> reasons = new ArrayList<>();
        JsonNode r = node.path("reasons");
        if (r.isArray()) {
            for (int i = 0; i < r.size(); i++) {
                if (r.get(i).isTextual()) {
                    reasons.add(r.get(i).asText());
                } else {
                    problems.add(new Problem(path + ".reasons[" + i + "]", r.get(i) + " (expected: a string)"));
                }
            }
        } else if (!r.isMissingNode() && !r.isNull()) {
            problems.add(new Problem(path + ".reasons", r + " (expected: a list of strings)"));
        }
        return problems.size() > before ? null : new RegionHealth(up, writable, lag, score, reasons);
    }

    private static boolean flag(JsonNode node, String path, String field, boolean absent, List<Problem> problems) {
        JsonNode f = node.path(field);
        if (f.isMissingNode() || f.isNull()) {
            return absent;
        }
        if (!f.isBoolean()) {
            problems.add(new Problem(path + "." + field, f + " (expected: true or false)"));
        }
        return f.booleanValue();
    }
}
