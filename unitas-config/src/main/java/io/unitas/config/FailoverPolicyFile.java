package io.unitas.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.internal.DocumentReader;
import io.unitas.config.internal.DurationFormat;
import io.unitas.core.Region;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.FailoverPolicy.Group;
import io.unitas.core.switchover.FailoverPolicy.Mode;

/**
 * Reads the control plane's failover policy from YAML or JSON: what happens by itself when a region stays unable
 * to take writes.
 * <pre>
 * groups:                 # a unit belongs to the first group that covers it; units no group covers are off
 *   - name: cn-users
 *     home: cn            # every unit whose home is cn (or: units: [u-sh, u-bj])
 *     mode: automatic     # off | automatic | ask (propose; an operator accepts with unitas ctl accept)
 *     after: 30s          # unwritable or unreachable this long: move the units to the first healthy fallback
 *     promote_after: 2m   # optional: this long, move without waiting on lag and record the RPO
 *     timeout: 60s        # optional: each switchover's deadline (default 60s)
 * </pre>
 * Every problem is reported at once, each as {@code file:line: path: message}; units and regions are checked
 * against the topology and rules where the policy is applied.
 */
public final class FailoverPolicyFile {

    private static final List<String> FIELDS = List.of("groups");
    private static final List<String> GROUP_FIELDS =
            List.of("name", "home", "units", "mode", "after", "promote_after", "timeout");
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    private FailoverPolicyFile() {}

    /** Reads and validates {@code file}. @throws ConfigException listing every problem */
    public static FailoverPolicy read(Path file) {
        return parse(ConfigDocument.read(file));
    }

    /** Validates an already parsed document. @throws ConfigException listing every problem */
    public static FailoverPolicy parse(ConfigDocument doc) {
        return new Reader(doc).policy();
    }

    /** The policy as a tree, in the document's form (durations as {@code 30s}). */
    public static ObjectNode toTree(FailoverPolicy policy) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode groups = root.putArray("groups");
        for (Group g : policy.groups()) {
            ObjectNode o = groups.addObject().put("name", g.name());
            if (g.home() != null) {
                o.put("home", g.home().id());
            } else {
                g.units().forEach(o.putArray("units")::add);
            }
            o.put("mode", g.mode().jsonName()).put("after", DurationFormat.format(g.after()));
            if (g.promoteAfter() != null) {
                o.put("promote_after", DurationFormat.format(g.promoteAfter()));
            }
            o.put("timeout", DurationFormat.format(g.timeout()));
        }
        return root;
    }

    private static final class Reader extends DocumentReader {

        Reader(ConfigDocument doc) {
            super(doc);
        }

        FailoverPolicy policy() {
            JsonNode root = doc.root();
            if (!root.isObject()) {
                throw doc.error("", "not a mapping (expected: groups)");
            }
            unknownKeys(root, "", FIELDS);
            List<Group> groups = new ArrayList<>();
            JsonNode list = root.path("groups");
            if (!list.isArray()) {
                problem("groups", (list.isMissingNode() ? "missing" : "not a list")
                                  + " (expected: a list of groups, each with name, home or units, mode and after)");
            } else {
                for (int i = 0; i < list.size(); i++) {
                    Group g = group(list.get(i), "groups[" + i + "]");
                    if (g != null) {
                        groups.add(g);
                    }
                }
            }
            throwIfProblems();
            return new FailoverPolicy(groups);
        }

        private Group group(JsonNode node, String path) {
            if (!node.isObject()) {
                problem(path, "not a mapping (expected: " + String.join(", ", GROUP_FIELDS) + ")");
                return null;
            }
            unknownKeys(node, path, GROUP_FIELDS);
            String name = text(node.get("name"), path + ".name", null);
            if (name == null || name.isBlank()) {
                problem(path + ".name", "missing (expected: a name for audit lines and proposals)");
            }
            String home = text(node.get("home"), path + ".home", null);
            if (home != null && !Region.isValidId(home)) {
                problem(path + ".home", "'" + home + "' (expected: a region id)");
                home = null;
            }
            List<String> units = new ArrayList<>();
            JsonNode unitsNode = node.get("units");
            if (unitsNode != null && !unitsNode.isArray()) {
                problem(path + ".units", unitsNode + " (expected: a list of unit ids)");
            } else if (unitsNode != null) {
                for (int i = 0; i < unitsNode.size(); i++) {
                    String unit = text(unitsNode.get(i), path + ".units[" + i + "]", null);
                    if (unit != null) {
                        units.add(unit);
                    }
                }
            }
            if (node.has("home") == (unitsNode != null)) {
                problem(path, node.has("home") ? "both home and units (expected: one of them)"
                                               : "neither home nor units (expected: one of them)");
            } else if (unitsNode != null && unitsNode.isEmpty()) {
                problem(path + ".units", "[] (expected: at least one unit)");
            }
            Mode mode = null;
            JsonNode modeNode = node.get("mode");
            // YAML 1.1 reads a bare off as false.
            String modeText = modeNode != null && modeNode.isBoolean() && !modeNode.asBoolean() ? "off"
                              : text(modeNode, path + ".mode", null);
            if (modeText == null || !List.of("off", "automatic", "ask").contains(modeText)) {
                problem(path + ".mode", (modeText == null ? "missing" : "'" + modeText + "'")
                                        + " (expected: off, automatic or ask)");
            } else {
                mode = Mode.fromJson(modeText);
            }
            Duration after = durationOrZero(node.get("after"), path + ".after", null);
            if (after == null && !node.has("after")) {
                problem(path + ".after", "missing (expected: how long a fault must last, like 30s)");
            }
            Duration promoteAfter = durationOrZero(node.get("promote_after"), path + ".promote_after", null);
            Duration timeout = duration(node.get("timeout"), path + ".timeout", DEFAULT_TIMEOUT);
            if (hasProblems() || name == null || mode == null || after == null) {
                return null;
            }
            return new Group(name, units, home == null ? null : Region.of(home), mode, after, promoteAfter, timeout);
        }
    }
}
