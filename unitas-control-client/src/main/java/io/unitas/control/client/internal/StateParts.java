package io.unitas.control.client.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.internal.DurationFormat;
import io.unitas.config.HealthFile;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Topology;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.fence.Writes;
import io.unitas.core.rules.UnitRules;

/**
 * Reads the parts of routing state, the same whether they come from static files or from a control plane's
 * state document: topology, unit rules, health ({@code region: {healthy, writable, replication_lag_ms, score,
 * reasons}}) and fences ({@code unit: {mode: reject|throttle, writes_per_second, burst, retry_after}}; a control
 * plane's fence says its {@code retry_after}, worked out by the control plane from how long the fence should hold).
 */
public final class StateParts {

    /** What a refused write is told to wait when the fence does not say ({@link FencePolicy#DEFAULT_RETRY_AFTER}). */
    public static final Duration DEFAULT_RETRY_AFTER = FencePolicy.DEFAULT_RETRY_AFTER;

    private StateParts() {
    }

    public static Topology topology(ConfigDocument doc) {
        return TopologyFile.parse(doc);
    }

    public static UnitRules rules(ConfigDocument doc, Topology topology) {
        return UnitRulesFile.parse(doc, topology);
    }

    /** The region health fields a health table may carry; a control plane's entries carry more, dropped here. */
    private static final Set<String> HEALTH_FIELDS =
            Set.of("healthy", "writable", "replication_lag_ms", "score", "reasons");

    /** Reads a health file ({@code region: true|false|{healthy, writable, replication_lag_ms, score, reasons}}). */
    public static HealthSnapshot health(ConfigDocument doc, Topology topology) {
        return HealthFile.parse(doc, topology);
    }

    /** Reads the health table of a control plane's state, keeping of each entry only the region health fields. */
    public static HealthSnapshot health(JsonNode table, Topology topology) {
        ObjectNode kept = JsonNodeFactory.instance.objectNode();
        for (Iterator<Map.Entry<String, JsonNode>> it = fields(table); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode entry = e.getValue();
            if (entry.isObject()) {
                ObjectNode fieldsKept = kept.putObject(e.getKey());
                HEALTH_FIELDS.forEach(f -> {
                    if (entry.has(f)) {
                        fieldsKept.set(f, entry.get(f));
                    }
                });
            } else {
                kept.set(e.getKey(), entry);
            }
        }
        return health(ConfigDocument.parse("control-plane-state.health.json", kept.toString()), topology);
    }

    /** Reads a fence table; a bare fence ({@code {}} or a control plane's {@code {reason, since}}) rejects. */
    public static WriteFences fences(ConfigDocument doc, JsonNode node, String base, Writes writes) {
        List<String> problems = new ArrayList<>();
        Map<String, FencePolicy> out = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = fields(node); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String path = join(base, e.getKey());
            JsonNode f = e.getValue();
            try {
                Duration retryAfter = f.has("retry_after")
                        ? DurationFormat.parsePositive(f.get("retry_after").asText()) : DEFAULT_RETRY_AFTER;
                String mode = f.path("mode").asText("reject");
                out.put(e.getKey(), switch (mode) {
                    case "reject" -> FencePolicy.reject(retryAfter);
                    case "throttle" -> FencePolicy.throttle(f.path("writes_per_second").asDouble(0),
                                                      f.path("burst").asInt(1), retryAfter);
                    default -> throw new IllegalArgumentException(
                            "mode: '" + mode + "' (expected: reject or throttle)");
                });
            } catch (IllegalArgumentException bad) {
                problems.add(doc.describe(path, bad.getMessage()));
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return WriteFences.of(out, writes);
    }

    private static Iterator<Map.Entry<String, JsonNode>> fields(JsonNode node) {
        return node == null || !node.isObject() ? java.util.Collections.emptyIterator() : node.properties().iterator();
    }

    private static String join(String base, String key) {
        return base.isEmpty() ? key : base + "." + key;
    }
}
