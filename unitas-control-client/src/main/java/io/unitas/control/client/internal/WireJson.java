package io.unitas.control.client.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.config.internal.DurationFormat;
import io.unitas.control.client.wire.AuditPage;
import io.unitas.control.client.wire.Caller;
import io.unitas.control.client.wire.Committed;
import io.unitas.control.client.wire.Evidence;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.wire.PlanView;
import io.unitas.control.client.wire.ReplicaView;
import io.unitas.control.client.wire.StalenessBudget;
import io.unitas.control.client.wire.StateView;
import io.unitas.control.client.wire.SwitchoverRequest;
import io.unitas.control.client.wire.SwitchoverStarted;
import io.unitas.control.client.wire.SwitchoverView;
import io.unitas.core.Problem;

/**
 * The wire records as JSON, in both directions: requests are read strictly (a field of the wrong type or grammar is
 * a problem naming it, never a default), answers leniently (a member the server adds later is ignored).
 */
public final class WireJson {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DURATION = "a duration like 500ms, 5s, 2m or 1h";

    private WireJson() {}

    /** A request read from JSON: the record, or every problem found (then {@code value} is null). */
    public record Parsed<T>(T value, List<Problem> problems) {
        public Parsed {
            problems = List.copyOf(problems);
        }

        /** Whether it was read without problems. */
        public boolean ok() {
            return problems.isEmpty();
        }
    }

    /** Parses {@code text} as JSON, or throws {@link IllegalArgumentException} saying where it breaks. */
    public static JsonNode tree(String text) {
        try {
            JsonNode node = JSON.readTree(text);
            return node == null ? JSON.missingNode() : node;
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage());
        }
    }

    // ---- requests: written by the client, read strictly by the server ----

    /** {@code request} as JSON. */
    public static String write(FenceRequest request) {
        ObjectNode o = JSON.createObjectNode();
        request.units().forEach(o.putArray("units")::add);
        o.put("reason", request.reason());
        if (request.retryAfter() != null) {
            o.put("retry_after", DurationFormat.format(request.retryAfter()));
        }
        return o.toString();
    }

    /** {@code request} as JSON. */
    public static String write(SwitchoverRequest request) {
        ObjectNode o = JSON.createObjectNode();
        if (!request.units().isEmpty()) {
            request.units().forEach(o.putArray("units")::add);
        }
        if (!request.drain().isEmpty()) {
            o.put("drain", request.drain());
        }
        if (!request.target().isEmpty()) {
            o.put("target", request.target());
        }
        o.put("max_lag", DurationFormat.format(request.maxLag()));
        if (request.deadline() != null) {
            o.put("deadline", request.deadline().toString());
        }
        if (request.timeout() != null) {
            o.put("timeout", DurationFormat.format(request.timeout()));
        }
        o.put("dry_run", request.dryRun()).put("force", request.force()).put("reason", request.reason())
         .put("promote", request.promote());
        return o.toString();
    }

    /** {@code {"observer": "eu"}}: the body of an unreachable report. */
    public static String observer(String observer) {
        return JSON.createObjectNode().put("observer", observer).toString();
    }

    /** {@code {"reason": "..."}}: the body of an abort or an accept. */
    public static String reason(String reason) {
        return JSON.createObjectNode().put("reason", reason == null ? "" : reason).toString();
    }

    /** A fence request; {@code reason} stands when the body gives none (the {@code X-Unitas-Reason} header). */
    public static Parsed<FenceRequest> fenceRequest(JsonNode doc, String reason) {
        Fields f = new Fields(doc);
        List<String> units = f.ids("units", "unit");
        String why = f.text("reason", reason);
        Duration retryAfter = f.duration("retry_after", null);
        return f.problems.isEmpty() ? new Parsed<>(new FenceRequest(units, why, retryAfter), List.of())
                                    : new Parsed<>(null, f.problems);
    }

    /**
     * A switchover request. {@code max_lag_ms} and {@code timeout_ms} (whole milliseconds) are still read for this
     * release, as {@code max_lag} and {@code timeout} were once sent; a request giving both forms is refused.
     */
    public static Parsed<SwitchoverRequest> switchoverRequest(JsonNode doc) {
        Fields f = new Fields(doc);
        List<String> units = doc.has("units") ? f.ids("units", "unit") : List.of();
        String drain = f.text("drain", "");
        String target = f.text("target", "");
        Duration maxLag = f.durationOrMillis("max_lag", "max_lag_ms", Duration.ZERO);
        Instant deadline = f.instant("deadline");
        Duration timeout = f.durationOrMillis("timeout", "timeout_ms", null);
        if (timeout != null && timeout.isZero()) {
            f.problem(doc.has("timeout") ? "timeout" : "timeout_ms", "0 (expected: a duration above 0)");
        }
        boolean dryRun = f.bool("dry_run");
        boolean force = f.bool("force");
        String reason = f.text("reason", "");
        boolean promote = f.bool("promote");
        return f.problems.isEmpty() ? new Parsed<>(new SwitchoverRequest(units, drain, target, maxLag, deadline,
                                                    timeout, dryRun, force, reason, promote), List.of())
                                    : new Parsed<>(null, f.problems);
    }

    /** A request body's fields, each read as one type, collecting a problem per field that is not. */
    private static final class Fields {
        final JsonNode doc;
        final List<Problem> problems = new ArrayList<>();

        Fields(JsonNode doc) {
            this.doc = doc;
            if (!doc.isMissingNode() && !doc.isObject()) {
                problem("", shown(doc) + " (expected: a JSON object)");
            }
        }

        void problem(String path, String message) {
            problems.add(new Problem(path, message));
        }

        private JsonNode field(String name) {
            JsonNode v = doc.isObject() ? doc.get(name) : null;
            return v == null || v.isNull() ? null : v;
        }

        String text(String name, String otherwise) {
            JsonNode v = field(name);
            if (v == null) {
                return otherwise;
            }
            if (!v.isTextual()) {
                problem(name, shown(v) + " (expected: a string)");
                return otherwise;
            }
            return v.asText();
        }

        boolean bool(String name) {
            JsonNode v = field(name);
            if (v == null) {
                return false;
            }
            if (!v.isBoolean()) {
                problem(name, shown(v) + " (expected: true or false)");
                return false;
            }
            return v.booleanValue();
        }

        List<String> ids(String name, String what) {
            JsonNode v = field(name);
            if (v == null) {
                return List.of();
            }
            if (!v.isArray()) {
                problem(name, shown(v) + " (expected: a list of " + what + " ids)");
                return List.of();
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                JsonNode id = v.get(i);
                if (!id.isTextual() || id.asText().isBlank()) {
                    problem(name + "[" + i + "]", shown(id) + " (expected: a " + what + " id)");
                } else {
                    out.add(id.asText());
                }
            }
            return out;
        }

        Duration duration(String name, Duration otherwise) {
            JsonNode v = field(name);
            if (v == null) {
                return otherwise;
            }
            if (v.isTextual()) {
                try {
                    return DurationFormat.parse(v.asText());
                } catch (IllegalArgumentException e) {
                    // named below with the field
                }
            }
            problem(name, shown(v) + " (expected: " + DURATION + ")");
            return otherwise;
        }

        /** {@code name} as a duration, or the deprecated {@code millisName} as whole milliseconds; not both. */
        Duration durationOrMillis(String name, String millisName, Duration otherwise) {
            JsonNode ms = field(millisName);
            if (ms == null) {
                return duration(name, otherwise);
            }
            if (field(name) != null) {
                problem(millisName, "given with " + name + " (expected: only " + name + ", a duration)");
                return otherwise;
            }
            if (!ms.isIntegralNumber() || !ms.canConvertToLong() || ms.asLong() < 0) {
                problem(millisName, shown(ms) + " (expected: a whole number of milliseconds >= 0; better: "
                                    + name + ", " + DURATION + ")");
                return otherwise;
            }
            return Duration.ofMillis(ms.asLong());
        }

        Instant instant(String name) {
            JsonNode v = field(name);
            if (v == null) {
                return null;
            }
            if (v.isTextual()) {
                try {
                    return Instant.parse(v.asText());
                } catch (DateTimeParseException e) {
                    // named below with the field
                }
            }
            problem(name, shown(v) + " (expected: an RFC 3339 instant)");
            return null;
        }
    }

    /** A value as a problem shows it: text quoted, anything else as JSON, long values cut. */
    private static String shown(JsonNode v) {
        String s = v.isTextual() ? "'" + v.asText() + "'" : v.toString();
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }

    // ---- answers: written by the server, read by the client ----

    /** A change's answer: its {@code revision}. */
    public static Committed committed(String body) {
        return new Committed(body.isBlank() ? 0 : tree(body).path("revision").asLong(0));
    }

    /** {@code GET /api/v1/whoami}'s answer. */
    public static Caller caller(String body) {
        JsonNode n = tree(body);
        return new Caller(n.path("name").asText(), n.path("role").asText());
    }

    /** {@code GET /api/v1/replica}'s answer. */
    public static ReplicaView replica(String body) {
        JsonNode n = tree(body);
        return new ReplicaView(n.path("leader").asBoolean(), n.path("revision").asLong());
    }

    /** {@code GET /api/v1/budgets}'s answer, as the server writes it. */
    public static ObjectNode budgetsTree(List<StalenessBudget> budgets) {
        ObjectNode out = JSON.createObjectNode();
        var list = out.putArray("budgets");
        for (StalenessBudget b : budgets) {
            ObjectNode o = list.addObject();
            o.put("name", b.name());
            o.put("declared_at", b.declaredAt());
            o.put("budget", DurationFormat.format(b.budget()));
            if (b.largestLagMs() < 0) {
                o.putNull("largest_lag_ms").putNull("lagging");
            } else {
                o.put("largest_lag_ms", b.largestLagMs()).put("lagging", b.lagging());
            }
            o.put("over", b.over());
        }
        return out;
    }

    /** {@code GET /api/v1/budgets}'s answer. */
    public static List<StalenessBudget> budgets(String body) {
        List<StalenessBudget> out = new ArrayList<>();
        for (JsonNode b : tree(body).path("budgets")) {
            JsonNode lag = b.path("largest_lag_ms");
            out.add(new StalenessBudget(b.path("name").asText(), b.path("declared_at").asText(),
                                        DurationFormat.parse(b.path("budget").asText()),
                                        lag.isNumber() ? lag.asLong() : -1, b.path("lagging").asText(""),
                                        b.path("over").asBoolean()));
        }
        return out;
    }

    /** {@code GET /api/v1/fallback-pool}'s answer: the pool's binary form, from its base64 {@code pool}. */
    public static byte[] fallbackPool(String body) {
        try {
            return java.util.Base64.getDecoder().decode(tree(body).path("pool").asText(""));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("pool: not base64 (expected: the pool's binary form)", e);
        }
    }

    /** {@code POST /api/v1/health/{region}/unreachable}'s answer. */
    public static Evidence evidence(String body) {
        JsonNode n = tree(body);
        return new Evidence(n.path("region").asText(), n.path("observer").asText(), n.path("counted").asBoolean(),
                            n.path("detail").asText());
    }

    /** {@code GET /api/v1/audit}'s answer. */
    public static AuditPage audit(String body) {
        List<AuditPage.Entry> entries = new ArrayList<>();
        tree(body).path("entries").forEach(e -> entries.add(new AuditPage.Entry(
                e.path("seq").asLong(), e.path("at").asText(), e.path("actor").asText(), e.path("action").asText(),
                e.path("target").asText(), e.path("outcome").asText(), e.path("detail").asText(),
                e.path("reason").asText())));
        return new AuditPage(entries);
    }

    /** The state, at {@code revision} when its body does not say. */
    public static StateView state(String body, long revision) {
        JsonNode n = tree(body);
        Set<String> fenced = new LinkedHashSet<>();
        n.path("fences").fieldNames().forEachRemaining(fenced::add);
        return new StateView(n.path("revision").asLong(revision), n.path("updated_at").asText(""), fenced,
                             switchoverIn(n.path("switchover")), body);
    }

    /** A switchover's JSON; the caller knows it is one. */
    public static SwitchoverView switchover(String body) {
        return switchover(tree(body));
    }

    /** The switchover in {@code node}, when it holds one. */
    public static Optional<SwitchoverView> switchoverIn(JsonNode node) {
        return node.isObject() && node.has("id") ? Optional.of(switchover(node)) : Optional.empty();
    }

    private static SwitchoverView switchover(JsonNode n) {
        List<String> units = new ArrayList<>();
        n.path("units").forEach(u -> units.add(u.asText()));
        Map<String, Long> rpo = new LinkedHashMap<>();
        n.path("rpo_ms").properties().forEach(e -> rpo.put(e.getKey(), e.getValue().asLong()));
        List<SwitchoverView.Step> steps = new ArrayList<>();
        n.path("steps").forEach(s -> steps.add(new SwitchoverView.Step(s.path("phase").asText(), s.path("at").asText(),
                                                                       s.path("detail").asText())));
        return new SwitchoverView(n.path("id").asText(), n.path("phase").asText(), units, n.path("target").asText(),
                                  rpo, n.path("outcome").asText(), steps);
    }

    /** {@code POST /api/v1/switchovers}'s answer (202 started, or 200 planned only). */
    public static SwitchoverStarted started(String body, long revision) {
        JsonNode n = tree(body);
        JsonNode p = n.path("plan");
        List<PlanView.Move> moves = new ArrayList<>();
        p.path("moves").forEach(m -> moves.add(new PlanView.Move(m.path("unit").asText(), m.path("from").asText(),
                                                                 m.path("to").asText(), m.path("load").asDouble())));
        Map<String, PlanView.Load> load = new LinkedHashMap<>();
        p.path("load").properties().forEach(e -> load.put(e.getKey(), new PlanView.Load(
                e.getValue().path("before").asDouble(), e.getValue().path("after").asDouble())));
        List<String> warnings = new ArrayList<>();
        p.path("warnings").forEach(w -> warnings.add(w.path("message").asText()));
        PlanView plan = new PlanView(p.path("accepted").asBoolean(), p.path("target").asText(), moves, load, warnings);
        return new SwitchoverStarted(plan, switchoverIn(n.path("switchover")), n.path("revision").asLong(revision));
    }
}
