package io.unitas.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.internal.DocumentReader;
import io.unitas.core.Region;
import io.unitas.core.consistency.MeasuredLag;

/**
 * Reads measured replication lag from the control plane's state, as {@code unitas ctl get} prints it (the whole
 * state, or only its {@code health} part with {@code unitas ctl get health}), from a file or from the state a client
 * fetched:
 * <pre>
 * health:
 *   eu:
 *     replication_lag_ms: 40            # the region's database standby lag; -1 (unknown) is left out
 *     unit_lag:                         # per unit, shipped from eu: how far behind each other region is
 *       u-paris:
 *         us: {lag_ms: 800, measured_at: "2026-12-04T20:00:00Z"}
 * </pre>
 * Other parts of the state are ignored. Every problem is reported at once, each as {@code file:line: path: message}.
 */
public final class MeasuredLagFile {

    private MeasuredLagFile() {}

    /** Reads {@code file}. @throws ConfigException listing every problem */
    public static MeasuredLag read(Path file) {
        return parse(ConfigDocument.read(file));
    }

    /** Reads a parsed document. @throws ConfigException listing every problem */
    public static MeasuredLag parse(ConfigDocument doc) {
        return new Reader(doc).lag();
    }

    private static final class Reader extends DocumentReader {

        Reader(ConfigDocument doc) {
            super(doc);
        }

        MeasuredLag lag() {
            JsonNode root = doc.root();
            if (!root.isObject()) {
                throw doc.error("", "not a mapping (expected: the control plane's state, or its health part)");
            }
            boolean whole = root.has("health");
            JsonNode health = whole ? root.get("health") : root;
            String prefix = whole ? "health." : "";
            List<MeasuredLag.Sample> samples = new ArrayList<>();
            if (!health.isObject()) {
                problem("health", "not a mapping (expected: region -> its health entry)");
            } else {
                for (Map.Entry<String, JsonNode> region : health.properties()) {
                    String at = prefix + region.getKey();
                    if (!Region.isValidId(region.getKey())) {
                        problem(at, "'" + region.getKey() + "' (expected: a region id)");
                        continue;
                    }
                    if (!region.getValue().isObject()) {
                        problem(at, "not a mapping (expected: a health entry)");
                        continue;
                    }
                    region(region.getKey(), region.getValue(), at, samples);
                }
            }
            throwIfProblems();
            return new MeasuredLag(samples);
        }

        private static boolean wholeLong(JsonNode node) {
            return node != null && node.isNumber() && node.canConvertToLong()
                   && node.decimalValue().stripTrailingZeros().scale() <= 0;
        }

        private void region(String region, JsonNode entry, String at, List<MeasuredLag.Sample> samples) {
            JsonNode db = entry.get("replication_lag_ms");
            if (db != null && !db.isNull()) {
                if (!wholeLong(db) || db.asLong() < -1) {
                    problem(at + ".replication_lag_ms", db + " (expected: a whole number of ms >= 0, or -1 for "
                                                        + "unknown)");
                } else if (db.asLong() >= 0) {
                    samples.add(MeasuredLag.Sample.ofDatabase(region, db.asLong()));
                }
            }
            JsonNode units = entry.get("unit_lag");
            if (units == null || units.isNull()) {
                return;
            }
            if (!units.isObject()) {
                problem(at + ".unit_lag", "not a mapping (expected: unit -> region -> {lag_ms})");
                return;
            }
            for (Map.Entry<String, JsonNode> unit : units.properties()) {
                String unitAt = at + ".unit_lag." + unit.getKey();
                if (!unit.getValue().isObject()) {
                    problem(unitAt, "not a mapping (expected: region -> {lag_ms})");
                    continue;
                }
                for (Map.Entry<String, JsonNode> to : unit.getValue().properties()) {
                    String toAt = unitAt + "." + to.getKey();
                    JsonNode ms = to.getValue().get("lag_ms");
                    if (!wholeLong(ms) || ms.asLong() < 0) {
                        problem(toAt + ".lag_ms", (ms == null ? "missing" : ms.toString())
                                                  + " (expected: a whole number of ms >= 0)");
                        continue;
                    }
                    samples.add(MeasuredLag.Sample.ofUnit(unit.getKey(), region, to.getKey(), ms.asLong()));
                }
            }
        }
    }
}
