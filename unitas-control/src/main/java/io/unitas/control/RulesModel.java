package io.unitas.control;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.Topology;

/**
 * The control plane's view of the unit rules document: validation against a topology, each unit's home and
 * load, and the remap a switchover flips (dropping the moved units' gray rules).
 */
final class RulesModel {

    /** Rules with no units. */
    static final JsonNode EMPTY = JsonNodeFactory.instance.objectNode()
            .<ObjectNode>set("units", JsonNodeFactory.instance.arrayNode())
            .set("gray", JsonNodeFactory.instance.arrayNode());

    private RulesModel() {}

    /** Every problem of {@code rules} as a whole against {@code topology}, with paths. */
    static List<Problem> validate(JsonNode rules, Topology topology) {
        List<Problem> problems = new ArrayList<>();
        if (!rules.isObject()) {
            problems.add(new Problem("", "expected: an object with units and gray"));
            return problems;
        }
        JsonNode units = rules.path("units");
        if (!units.isArray()) {
            problems.add(new Problem("units", "expected: a list of units"));
            return problems;
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < units.size(); i++) {
            JsonNode unit = units.get(i);
            String path = "units[" + i + "]";
            String id = unit.path("id").asText("");
            if (id.isEmpty()) {
                problems.add(new Problem(path + ".id", "missing (expected: a unit id)"));
            } else if (!ids.add(id)) {
                problems.add(new Problem(path + ".id", "duplicate unit '" + id + "'"));
            }
            String home = unit.path("home").asText("");
            if (topology == null) {
                problems.add(new Problem(path + ".home", "'" + home + "' (expected: a topology applied first)"));
            } else if (topology.region(home).isEmpty()) {
                problems.add(new Problem(path + ".home", "unknown region '" + home + "' (expected one of: "
                        + String.join(", ", topology.regions().stream().map(Region::id).toList()) + ")"));
            }
            if (unit.has("load") && !(unit.get("load").isNumber() && unit.get("load").asDouble() >= 0)) {
                problems.add(new Problem(path + ".load", unit.get("load") + " (expected: a number >= 0)"));
            }
        }
        JsonNode gray = rules.path("gray");
        for (int i = 0; i < gray.size(); i++) {
            String unit = gray.get(i).path("unit").asText("");
            if (!ids.contains(unit)) {
                problems.add(new Problem("gray[" + i + "].unit", "unknown unit '" + unit + "'"));
            }
        }
        return problems;
    }

    /** Each unit's home region, in document order. */
    static Map<String, Region> homes(JsonNode rules) {
        Map<String, Region> homes = new LinkedHashMap<>();
        rules.path("units").forEach(u -> homes.put(u.path("id").asText(), Region.of(u.path("home").asText())));
        return homes;
    }

    /** The load {@code unit} brings, 1 when the rules do not say. */
    static double load(JsonNode rules, String unit) {
        for (JsonNode u : rules.path("units")) {
            if (u.path("id").asText().equals(unit)) {
                return u.path("load").asDouble(1.0);
            }
        }
        return 0;
    }

    /** The rules with each unit of {@code moves} homed in its new region and its gray rules dropped. */
    static JsonNode remap(JsonNode rules, Map<String, Region> moves) {
        ObjectNode next = rules.deepCopy();
        next.path("units").forEach(u -> {
            Region to = moves.get(u.path("id").asText());
            if (to != null) {
                ((ObjectNode) u).put("home", to.id());
            }
        });
        ArrayNode gray = JsonNodeFactory.instance.arrayNode();
        rules.path("gray").forEach(g -> {
            if (!moves.containsKey(g.path("unit").asText())) {
                gray.add(g);
            }
        });
        next.set("gray", gray);
        return next;
    }
}
