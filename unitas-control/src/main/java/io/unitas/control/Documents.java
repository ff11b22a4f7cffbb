package io.unitas.control;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.ConfigException;
import io.unitas.config.FailoverPolicyFile;
import io.unitas.config.HealthReportJson;
import io.unitas.config.TopologyFile;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.Problem;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.switchover.FailoverPolicy;

/**
 * Topology and rules documents as the API receives them (JSON, or YAML by content type), and health reports, read
 * by the same readers as the files and the agent, so a document is valid here exactly when they say so. A refusal keeps both
 * forms of every problem: by path, and as the reader's {@code name:line: path: message} line.
 */
final class Documents {

    /** A document read into {@code value}, or the problems that stopped it. */
    record Read<T>(T value, List<Problem> problems, List<String> lines) {
        boolean ok() {
            return value != null;
        }

        /** The refusal of this document as {@code what}: its problems by path and as the reader's lines. */
        Refusal refusal(String what) {
            return Refusal.invalid(what, problems, lines);
        }
    }

    private static final Pattern LINE = Pattern.compile("^[^:]+(?::(\\d+))?: (?:([A-Za-z0-9_.\\[\\]~-]+): )?(.*)$");

    private Documents() {}

    static Read<Topology> topology(String name, String text) {
        try {
            return new Read<>(TopologyFile.parse(ConfigDocument.parse(name, text)), List.of(), List.of());
        } catch (ConfigException e) {
            return refused(e);
        }
    }

    static Read<UnitRules> rules(String name, String text, Topology topology) {
        if (topology == null) {
            return new Read<>(null, List.of(new Problem("", "no topology applied yet (expected: PUT "
                                                                + "/api/v1/topology first)")), List.of());
        }
        try {
            return new Read<>(UnitRulesFile.parse(ConfigDocument.parse(name, text), topology), List.of(), List.of());
        } catch (ConfigException e) {
            return refused(e);
        }
    }

    /** A failover policy, checked against the topology and the rules' units it names. */
    static Read<FailoverPolicy> failover(String name, String text, Topology topology, UnitRules rules) {
        if (topology == null || rules == null) {
            return new Read<>(null, List.of(new Problem("", "no topology and rules applied yet (expected: PUT "
                    + "/api/v1/topology and /api/v1/rules first)")), List.of());
        }
        FailoverPolicy policy;
        try {
            policy = FailoverPolicyFile.parse(ConfigDocument.parse(name, text));
        } catch (ConfigException e) {
            return refused(e);
        }
        java.util.Set<String> units = new java.util.HashSet<>();
        rules.units().forEach(u -> units.add(u.id()));
        List<Problem> problems = policy.problems(topology, units);
        if (!problems.isEmpty()) {
            List<String> lines = problems.stream().map(p -> name + ": " + p).toList();
            return new Read<>(null, problems, lines);
        }
        return new Read<>(policy, List.of(), List.of());
    }

    /** A health report as {@code unitas health serve} pushes it, read by the agent's own reader. */
    static Read<HealthReport> healthReport(String text) {
        try {
            return new Read<>(HealthReportJson.read(text), List.of(), List.of());
        } catch (ConfigException e) {
            return refused(e);
        }
    }

    /** The rules re-read against another topology, as a topology change must keep them valid. */
    static Read<UnitRules> rules(UnitRules rules, Topology topology) {
        return rules(RULES_JSON, StateJson.write(UnitRulesFile.toTree(rules)), topology);
    }

    static final String RULES_JSON = "rules.json";

    private static <T> Read<T> refused(ConfigException e) {
        List<Problem> problems = new ArrayList<>();
        for (String line : e.problems()) {
            Matcher m = LINE.matcher(line);
            problems.add(m.matches() ? new Problem(m.group(2) == null ? "" : m.group(2), m.group(3))
                                     : new Problem("", line));
        }
        return new Read<>(null, problems, e.problems());
    }
}
