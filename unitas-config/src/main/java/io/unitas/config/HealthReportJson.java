package io.unitas.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.CheckReport;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;

/**
 * The stable JSON form of a {@link HealthReport}: what a health agent pushes to the control plane
 * ({@code PUT /api/v1/health/{region}}) and serves at {@code /healthz}.
 * <pre>{@code
 * {"region":"cn","sequence":17,"observed_at":"2026-11-30T14:00:00.123Z","healthy":false,"writable":false,
 *  "replication_lag_ms":1200,"score":0,"reasons":["pg-primary: read-only (transaction_read_only=on)"],
 *  "checks":{"pg-primary":{"up":false,"latency_ms":3,"reason":"read-only (transaction_read_only=on)",
 *                          "replication_lag_ms":-1,"details":{"role":"primary","writable":false}}},
 *  "unit_lag":{"u-sh":{"eu":{"lag_ms":0,"measured_at":"2026-11-30T14:00:00.100Z"},
 *                      "us":{"lag_ms":180,"measured_at":"2026-11-30T14:00:00.100Z","changes":4}}},
 *  "positions":{"read_at":"2026-11-30T14:00:00.090Z",
 *               "written":{"u-sh":{"pending":4,"oldest":1000000000012,"oldest_written_at":"2026-11-30T13:59:59.910Z",
 *                                  "head":1000000000020,"head_written_at":"2026-11-30T14:00:00.050Z"}},
 *               "applied":{"eu":{"u-de":1000000000007}}},
 *  "reconciliation":{"read_at":"2026-11-30T14:00:00.090Z",
 *                    "units":{"u-de":{"open_siblings":2,"oldest_sibling_at":"2026-11-30T13:58:00Z",
 *                                     "pass":{"home":"eu","at":"2026-11-30T13:59:55Z","window_ms":10000,
 *                                             "ranges_differing":3,"ranges_pending":1,"keys_repaired":5}}}}}
 * }</pre>
 * Per check, {@code replication_lag_ms} and {@code details} are optional when reading. {@code unit_lag} is optional
 * (written only when the region ships units' data): per unit and other region, the age of the oldest change of that
 * unit not yet applied there, 0 when caught up, and optionally how many changes that is; a unit or region absent
 * from it is unknown. {@code positions} is optional (written only when the region reads them from its database):
 * per unit the changes it keeps in its outbox, per other region and unit the position it has applied.
 * {@code reconciliation} is optional (written only when the region reads it from its database): per unit, the
 * entities in conflict (open siblings) and the unit's last reconciliation pass ({@code failure} only when it failed).
 * Unknown fields are ignored, so fields can be added without breaking older readers.
 */
public final class HealthReportJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private HealthReportJson() {}

    /** The report as one line of JSON. */
    public static String write(HealthReport report) {
        return toTree(report).toString();
    }

    /** The report as a JSON tree, for embedding in a larger document. */
    public static ObjectNode toTree(HealthReport report) {
        RegionHealth health = report.health();
        ObjectNode out = NODES.objectNode();
        out.put("region", report.region().id());
        out.put("sequence", report.sequence());
        out.put("observed_at", report.observedAt().truncatedTo(ChronoUnit.MILLIS).toString());
        out.put("healthy", health.healthy());
        out.put("writable", health.writable());
        out.put("replication_lag_ms", health.replicationLagMs());
        out.put("score", health.score());
        ArrayNode reasons = out.putArray("reasons");
        health.reasons().forEach(reasons::add);
        ObjectNode checks = out.putObject("checks");
        report.checks().forEach((name, check) -> checks.set(name, checkTree(check)));
        if (!report.unitLags().isEmpty()) {
            out.set("unit_lag", unitLagTree(report.unitLags()));
        }
        if (report.positions().known()) {
            out.set("positions", positionsTree(report.positions()));
        }
        if (report.reconciliation().known()) {
            out.set("reconciliation", reconciliationTree(report.reconciliation()));
        }
        return out;
    }

    /**
     * A region's conflicts and drift per unit as JSON (see the class comment); {@code {}} when not
     * {@link UnitReconciliation#known()}.
     */
    public static ObjectNode reconciliationTree(UnitReconciliation reconciliation) {
        ObjectNode out = NODES.objectNode();
        if (!reconciliation.known()) {
            return out;
        }
        out.put("read_at", millis(reconciliation.readAt()));
        ObjectNode units = out.putObject("units");
        reconciliation.units().forEach((unit, u) -> {
            ObjectNode o = units.putObject(unit).put("open_siblings", u.openSiblings());
            u.oldestSibling().ifPresent(at -> o.put("oldest_sibling_at", millis(at)));
            u.pass().ifPresent(p -> {
                ObjectNode pass = o.putObject("pass").put("home", p.home().id()).put("at", millis(p.at()))
                        .put("window_ms", p.window().toMillis()).put("ranges_differing", p.rangesDiffering())
                        .put("ranges_pending", p.rangesPending()).put("keys_repaired", p.keysRepaired());
                p.failure().ifPresent(f -> pass.put("failure", f));
            });
        });
        return out;
    }

    /**
     * Conflicts and drift read from {@link #reconciliationTree}'s form ({@link UnitReconciliation#NONE} for
     * {@code {}}); throws {@link ConfigException} naming the path of the first wrong field.
     */
    public static UnitReconciliation readReconciliation(JsonNode node) {
        return new Reader().reconciliation(node, "reconciliation");
    }

    private static String millis(Instant at) {
        return at.truncatedTo(ChronoUnit.MILLIS).toString();
    }

    /** A region's positions as JSON (see the class comment); {@code {}} when not {@link UnitPositions#known()}. */
    public static ObjectNode positionsTree(UnitPositions positions) {
        ObjectNode out = NODES.objectNode();
        if (!positions.known()) {
            return out;
        }
        out.put("read_at", positions.readAt().truncatedTo(ChronoUnit.MILLIS).toString());
        ObjectNode written = out.putObject("written");
        positions.written().forEach((unit, w) -> written.putObject(unit).put("pending", w.pending())
                .put("oldest", w.oldest())
                .put("oldest_written_at", w.oldestWrittenAt().truncatedTo(ChronoUnit.MILLIS).toString())
                .put("head", w.head())
                .put("head_written_at", w.headWrittenAt().truncatedTo(ChronoUnit.MILLIS).toString()));
        ObjectNode applied = out.putObject("applied");
        positions.applied().forEach((origin, units) -> {
            ObjectNode o = applied.putObject(origin.id());
            units.forEach(o::put);
        });
        return out;
    }

    /**
     * Positions read from {@link #positionsTree}'s form ({@link UnitPositions#NONE} for {@code {}}); throws
     * {@link ConfigException} naming the path of the first wrong field.
     */
    public static UnitPositions readPositions(JsonNode node) {
        return new Reader().positions(node, "positions");
    }

    /** Per-unit lag as JSON: {@code {"u-sh":{"eu":{"lag_ms":0,"measured_at":"…"}}}}, units in the given order. */
    public static ObjectNode unitLagTree(List<UnitLag> lags) {
        ObjectNode out = NODES.objectNode();
        for (UnitLag lag : lags) {
            ObjectNode unit = out.has(lag.unit()) ? (ObjectNode) out.get(lag.unit()) : out.putObject(lag.unit());
            ObjectNode to = unit.putObject(lag.to().id()).put("lag_ms", lag.lagMs())
                .put("measured_at", lag.measuredAt().truncatedTo(ChronoUnit.MILLIS).toString());
            if (lag.changes() != UnitLag.UNKNOWN_CHANGES) {
                to.put("changes", lag.changes());
            }
        }
        return out;
    }

    /**
     * Per-unit lag read from {@link #unitLagTree}'s form; throws {@link ConfigException} naming the path of the
     * first wrong field ({@code health report: unit_lag.u-sh.eu.lag_ms: -1 (expected: >= 0)}).
     */
    public static List<UnitLag> readUnitLags(JsonNode node) {
        return new Reader().unitLags(node, "unit_lag");
    }

    /** One check as JSON: {@code up}, {@code latency_ms}, {@code reason}, {@code replication_lag_ms}, details. */
    public static ObjectNode checkTree(CheckReport check) {
        ObjectNode out = NODES.objectNode();
        out.put("up", check.up());
        out.put("latency_ms", check.latencyMs());
        out.put("reason", check.reason());
        out.put("replication_lag_ms", check.replicationLagMs());
        if (!check.details().isEmpty()) {
            out.set("details", MAPPER.valueToTree(check.details()));
        }
        return out;
    }

    /**
     * Parses a report; throws {@link ConfigException} naming the path of the first field that is missing or
     * wrong and what was expected ({@code health report: checks.pg.up: missing (expected: true or false)}).
     */
    public static HealthReport read(String json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new ConfigException("health report: not valid JSON: " + e.getOriginalMessage());
        }
        Reader in = new Reader();
        in.object(root, "");
        String regionId = in.text(root, "region");
        if (!Region.isValidId(regionId)) {
            throw in.error("region", "'" + regionId + "' (expected: lowercase letters, digits, '-' or '_')");
        }
        long sequence = in.number(root, "sequence").longValue();
        Instant observedAt = in.instant(root, "observed_at");
        boolean healthy = in.bool(root, "healthy");
        boolean writable = in.bool(root, "writable");
        long lag = in.lag(root, "replication_lag_ms");
        double score = in.number(root, "score").doubleValue();
        if (!(score >= 0 && score <= 1)) {
            throw in.error("score", score + " (expected: 0 <= score <= 1)");
        }
        List<String> reasons = new ArrayList<>();
        JsonNode reasonsNode = in.field(root, "reasons");
        if (!reasonsNode.isArray()) {
            throw in.error("reasons", "not a list (expected: a list of strings)");
        }
        for (int i = 0; i < reasonsNode.size(); i++) {
            JsonNode reason = reasonsNode.get(i);
            if (!reason.isTextual()) {
                throw in.error("reasons[" + i + "]", reason + " (expected: a string)");
            }
            reasons.add(reason.asText());
        }
        Map<String, CheckReport> checks = new LinkedHashMap<>();
        JsonNode checksNode = in.field(root, "checks");
        in.object(checksNode, "checks");
        for (Map.Entry<String, JsonNode> e : checksNode.properties()) {
            checks.put(e.getKey(), in.check(e.getValue(), "checks." + e.getKey()));
        }
        JsonNode unitLagNode = root.get("unit_lag");
        List<UnitLag> unitLags = unitLagNode == null || unitLagNode.isNull() ? List.of()
                                                                              : in.unitLags(unitLagNode, "unit_lag");
        JsonNode positionsNode = root.get("positions");
        UnitPositions positions = positionsNode == null || positionsNode.isNull() ? UnitPositions.NONE
                                                                                  : in.positions(positionsNode,
                                                                                                 "positions");
        JsonNode reconciliationNode = root.get("reconciliation");
        UnitReconciliation reconciliation = reconciliationNode == null || reconciliationNode.isNull()
                ? UnitReconciliation.NONE : in.reconciliation(reconciliationNode, "reconciliation");
        try {
            return new HealthReport(Region.of(regionId), sequence, observedAt,
                                    new RegionHealth(healthy, writable, lag, score, reasons), checks, unitLags,
                                    positions, reconciliation);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("health report: " + e.getMessage());
        }
    }

    /** Reads fields by path, failing on the first wrong one. */
    private static final class Reader {

        ConfigException error(String path, String message) {
            return new ConfigException("health report: " + path + ": " + message);
        }

        void object(JsonNode node, String path) {
            if (node == null || !node.isObject()) {
                throw new ConfigException("health report: " + (path.isEmpty() ? "" : path + ": ")
                                          + "not an object (expected: a JSON object)");
            }
        }

        JsonNode field(JsonNode parent, String path) {
            JsonNode node = parent.get(path.substring(path.lastIndexOf('.') + 1));
            if (node == null || node.isNull()) {
                throw error(path, "missing");
            }
            return node;
        }

        String text(JsonNode parent, String path) {
            JsonNode node = field(parent, path);
            if (!node.isTextual()) {
                throw error(path, node + " (expected: a string)");
            }
            return node.asText();
        }

        BigDecimal number(JsonNode parent, String path) {
            JsonNode node = field(parent, path);
            if (!node.isNumber() || node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
                throw error(path, node + " (expected: a finite number)");
            }
            return node.decimalValue();
        }

        long lag(JsonNode parent, String path) {
            long lag = number(parent, path).longValue();
            if (lag < RegionHealth.UNKNOWN_LAG) {
                throw error(path, lag + " (expected: >= 0, or -1 for unknown)");
            }
            return lag;
        }

        boolean bool(JsonNode parent, String path) {
            JsonNode node = parent.get(path.substring(path.lastIndexOf('.') + 1));
            if (node == null || !node.isBoolean()) {
                throw error(path, (node == null ? "missing" : node.toString()) + " (expected: true or false)");
            }
            return node.asBoolean();
        }

        Instant instant(JsonNode parent, String path) {
            String text = text(parent, path);
            try {
                return Instant.parse(text);
            } catch (DateTimeParseException e) {
                throw error(path, "'" + text + "' (expected: an RFC 3339 UTC time like 2026-11-30T14:00:00.123Z)");
            }
        }

        List<UnitLag> unitLags(JsonNode node, String path) {
            object(node, path);
            List<UnitLag> lags = new ArrayList<>();
            for (Map.Entry<String, JsonNode> unit : node.properties()) {
                String unitPath = path + "." + unit.getKey();
                object(unit.getValue(), unitPath);
                for (Map.Entry<String, JsonNode> e : unit.getValue().properties()) {
                    String at = unitPath + "." + e.getKey();
                    if (!Region.isValidId(e.getKey())) {
                        throw error(at, "'" + e.getKey() + "' is no region id (expected: lowercase letters, "
                                        + "digits, '-' or '_')");
                    }
                    object(e.getValue(), at);
                    JsonNode ms = e.getValue().get("lag_ms");
                    if (ms == null || !ms.isIntegralNumber() || ms.asLong() < 0) {
                        throw error(at + ".lag_ms", (ms == null ? "missing" : ms.toString())
                                                    + " (expected: an integer >= 0; leave the entry out when unknown)");
                    }
                    JsonNode changes = e.getValue().get("changes");
                    if (changes != null && (!changes.isIntegralNumber() || changes.asLong() < 0)) {
                        throw error(at + ".changes", changes + " (expected: an integer >= 0; leave it out when not "
                                                     + "counted)");
                    }
                    try {
                        lags.add(new UnitLag(unit.getKey(), Region.of(e.getKey()), ms.asLong(),
                                             instant(e.getValue(), at + ".measured_at"),
                                             changes == null ? UnitLag.UNKNOWN_CHANGES : changes.asLong()));
                    } catch (IllegalArgumentException ex) {
                        throw error(at, ex.getMessage());
                    }
                }
            }
            return lags;
        }

        UnitPositions positions(JsonNode node, String path) {
            object(node, path);
            if (node.isEmpty()) {
                return UnitPositions.NONE;
            }
            Instant readAt = instant(node, path + ".read_at");
            Map<String, UnitPositions.Written> written = new LinkedHashMap<>();
            JsonNode writtenNode = field(node, path + ".written");
            object(writtenNode, path + ".written");
            for (Map.Entry<String, JsonNode> unit : writtenNode.properties()) {
                String at = path + ".written." + unit.getKey();
                object(unit.getValue(), at);
                try {
                    written.put(unit.getKey(), new UnitPositions.Written(position(unit.getValue(), at + ".pending"),
                            position(unit.getValue(), at + ".oldest"),
                            instant(unit.getValue(), at + ".oldest_written_at"),
                            position(unit.getValue(), at + ".head"),
                            instant(unit.getValue(), at + ".head_written_at")));
                } catch (IllegalArgumentException e) {
                    throw error(at, e.getMessage());
                }
            }
            Map<Region, Map<String, Long>> applied = new LinkedHashMap<>();
            JsonNode appliedNode = field(node, path + ".applied");
            object(appliedNode, path + ".applied");
            for (Map.Entry<String, JsonNode> origin : appliedNode.properties()) {
                String at = path + ".applied." + origin.getKey();
                if (!Region.isValidId(origin.getKey())) {
                    throw error(at, "'" + origin.getKey() + "' is no region id (expected: lowercase letters, "
                                    + "digits, '-' or '_')");
                }
                object(origin.getValue(), at);
                Map<String, Long> units = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> unit : origin.getValue().properties()) {
                    units.put(unit.getKey(), position(origin.getValue(), at + "." + unit.getKey()));
                }
                applied.put(Region.of(origin.getKey()), units);
            }
            return UnitPositions.of(readAt, written, applied);
        }

        UnitReconciliation reconciliation(JsonNode node, String path) {
            object(node, path);
            if (node.isEmpty()) {
                return UnitReconciliation.NONE;
            }
            Instant readAt = instant(node, path + ".read_at");
            JsonNode unitsNode = field(node, path + ".units");
            object(unitsNode, path + ".units");
            Map<String, UnitReconciliation.Unit> units = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> unit : unitsNode.properties()) {
                String at = path + ".units." + unit.getKey();
                JsonNode u = unit.getValue();
                object(u, at);
                Optional<Instant> oldest = u.has("oldest_sibling_at")
                        ? Optional.of(instant(u, at + ".oldest_sibling_at")) : Optional.empty();
                Optional<UnitReconciliation.Pass> pass = u.has("pass") ? Optional.of(pass(u.get("pass"), at + ".pass"))
                                                                       : Optional.empty();
                try {
                    units.put(unit.getKey(), new UnitReconciliation.Unit(
                            Math.toIntExact(position(u, at + ".open_siblings")), oldest, pass));
                } catch (IllegalArgumentException | ArithmeticException e) {
                    throw error(at, e.getMessage());
                }
            }
            return UnitReconciliation.of(readAt, units);
        }

        private UnitReconciliation.Pass pass(JsonNode node, String path) {
            object(node, path);
            String home = text(node, path + ".home");
            if (!Region.isValidId(home)) {
                throw error(path + ".home", "'" + home + "' is no region id (expected: lowercase letters, digits, "
                                            + "'-' or '_')");
            }
            Optional<String> failure = node.has("failure") ? Optional.of(text(node, path + ".failure"))
                                                           : Optional.empty();
            try {
                return new UnitReconciliation.Pass(Region.of(home), instant(node, path + ".at"),
                        Duration.ofMillis(position(node, path + ".window_ms")),
                        Math.toIntExact(position(node, path + ".ranges_differing")),
                        Math.toIntExact(position(node, path + ".ranges_pending")),
                        Math.toIntExact(position(node, path + ".keys_repaired")), failure);
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw error(path, e.getMessage());
            }
        }

        long position(JsonNode parent, String path) {
            JsonNode node = field(parent, path);
            if (!node.isIntegralNumber() || node.asLong() < 0) {
                throw error(path, node + " (expected: an integer >= 0)");
            }
            return node.asLong();
        }

        CheckReport check(JsonNode node, String path) {
            object(node, path);
            boolean up = bool(node, path + ".up");
            long latency = number(node, path + ".latency_ms").longValue();
            String reason = text(node, path + ".reason");
            long lag = node.has("replication_lag_ms") ? lag(node, path + ".replication_lag_ms")
                                                      : RegionHealth.UNKNOWN_LAG;
            Map<String, Object> details = new LinkedHashMap<>();
            JsonNode detailsNode = node.get("details");
            if (detailsNode != null && !detailsNode.isNull()) {
                object(detailsNode, path + ".details");
                detailsNode.properties().forEach(e -> details.put(e.getKey(), scalar(e.getValue())));
            }
            try {
                return new CheckReport(up, latency, reason, lag, details);
            } catch (IllegalArgumentException e) {
                throw error(path, e.getMessage());
            }
        }

        private static Object scalar(JsonNode node) {
            if (node.isBoolean()) {
                return node.asBoolean();
            }
            if (node.isIntegralNumber()) {
                return node.asLong();
            }
            if (node.isNumber()) {
                return node.asDouble();
            }
            return node.isTextual() ? node.asText() : node.toString();
        }
    }
}
