package io.unitas.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.config.HealthReportJson;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverPhase;
import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.core.switchover.SwitchoverPlan;
import io.unitas.core.fence.FenceRecord;

/**
 * Every operation on the control-plane state: each validates its change against the whole state, commits it as
 * the next revision (compare-and-set, retried for changes that do not name a revision), and records it, or its
 * refusal, in the audit log. The one owner of state transitions; the HTTP layer only translates.
 */
final class ControlService {

    /** Retries of a commit that lost a race to another change, for changes without If-Match. */
    private static final int RETRIES = 20;

    private final StateStore store;
    private final Clock clock;
    private final Duration healthTtl;
    private final Duration healthGrace;
    private final SwitchoverCooldown cooldown;

    ControlService(StateStore store, Clock clock, Duration healthTtl, Duration healthGrace,
                   SwitchoverCooldown cooldown) {
        this.store = store;
        this.clock = clock;
        this.healthTtl = healthTtl;
        this.healthGrace = healthGrace;
        this.cooldown = cooldown;
    }

    StateStore store() {
        return store;
    }

    /** A change computed from the current state: the next state and what changed, or a refusal. */
    private record Change(ControlState next, String detail, JsonNode body, Outcome refusal) {
        static Change to(ControlState next, String detail) {
            return new Change(next, detail, null, null);
        }

        static Change refused(Outcome refusal) {
            return new Change(null, null, null, refusal);
        }

        Change withBody(JsonNode body) {
            return new Change(next, detail, body, refusal);
        }
    }

    // ---- reads

    Outcome state() {
        ControlState s = store.current();
        return Outcome.ok(StateJson.state(s), s.revision());
    }

    Outcome switchover(String id) {
        Switchover s = store.current().switchover();
        if (s == null || !(s.id().equals(id) || "current".equals(id))) {
            return Outcome.problem(Outcome.Kind.NOT_FOUND, "switchover '" + id + "': not the current or last one");
        }
        return Outcome.ok(StateJson.switchover(s), store.current().revision());
    }

    Outcome audit(long afterSeq, int limit) {
        ArrayNode entries = StateJson.MAPPER.createArrayNode();
        store.audit(afterSeq, limit).forEach(e -> entries.add(e.toJson()));
        ObjectNode body = StateJson.MAPPER.createObjectNode();
        body.set("entries", entries);
        return Outcome.ok(body, store.current().revision());
    }

    // ---- changes

    Outcome replaceTopology(String actor, String ifMatch, String name, String text, String reason) {
        return change(actor, "topology.replace", "topology", reason, ifMatch, current -> {
            Documents.Read<Topology> topology = Documents.topology(name, text);
            if (!topology.ok()) {
                return Change.refused(invalid("topology", topology));
            }
            UnitRules rules = null;
            if (current.rules() != null) {
                Documents.Read<UnitRules> again = Documents.rules(current.rules(), topology.value());
                if (!again.ok()) {
                    return Change.refused(invalid("the current rules against this topology", again));
                }
                rules = again.value();
            }
            if (current.switchoverRunning()) {
                return Change.refused(runningSwitchover(current));
            }
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.keySet().removeIf(r -> !topology.value().contains(r));
            return Change.to(current.withTopology(topology.value()).withRules(rules).withHealth(health),
                             "regions " + topology.value().regions() + (current.topology() == null ? ""
                                     : " (were " + current.topology().regions() + ")"));
        });
    }

    Outcome replaceRules(String actor, String ifMatch, String name, String text, String reason) {
        return change(actor, "rules.replace", "rules", reason, ifMatch, current -> {
            Documents.Read<UnitRules> rules = Documents.rules(name, text, current.topology());
            if (!rules.ok()) {
                return Change.refused(invalid("rules", rules));
            }
            if (current.switchoverRunning()) {
                return Change.refused(runningSwitchover(current));
            }
            return Change.to(current.withRules(rules.value()), rules.value().units().size() + " units, "
                                                                 + rules.value().ranges().size() + " ranges");
        });
    }

    Outcome reportHealth(String actor, String regionId, String text) {
        return change(actor, "health.report", regionId, "", null, current -> {
            Optional<Region> region = current.topology() == null ? Optional.empty()
                                                                  : current.topology().region(regionId);
            if (region.isEmpty()) {
                return Change.refused(Outcome.problem(Outcome.Kind.NOT_FOUND, "region '" + regionId
                        + "': not in the topology"));
            }
            Documents.Read<HealthReport> read = Documents.healthReport(text);
            if (!read.ok()) {
                return Change.refused(invalid("health report", read));
            }
            HealthReport report = read.value();
            if (!report.region().equals(region.get())) {
                return Change.refused(invalid("health report", List.of(new Problem("region", "'"
                        + report.region() + "' (expected: '" + region.get() + "' as in the path)"))));
            }
            HealthEntry last = current.health().get(region.get());
            if (last != null && report.sequence() <= last.sequence()
                && !report.observedAt().isAfter(last.observedAt())) {
                return Change.refused(Outcome.problem(Outcome.Kind.CONFLICT, "sequence " + report.sequence()
                        + " observed at " + report.observedAt() + " is not newer than sequence " + last.sequence()));
            }
            HealthEntry entry = new HealthEntry(region.get(), report.sequence(), report.observedAt(),
                    clock.instant(), report.health(), HealthReportJson.toTree(report).get("checks"),
                    HealthEntry.Freshness.FRESH);
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.put(region.get(), entry);
            String detail = "healthy=" + entry.reported().healthy() + " writable=" + entry.reported().writable()
                            + " lag=" + entry.reported().replicationLagMs() + "ms";
            boolean flipped = last == null || last.effective().healthy() != entry.reported().healthy()
                              || last.reported().writable() != entry.reported().writable();
            return Change.to(current.withHealth(health), flipped ? detail : "");
        });
    }

    Outcome addFences(String actor, List<String> units, String reason) {
        return change(actor, "fence.add", String.join(",", units), reason, null, current -> {
            Map<String, Region> homes = current.homes();
            List<Problem> problems = new ArrayList<>();
            for (int i = 0; i < units.size(); i++) {
                if (!homes.containsKey(units.get(i))) {
                    problems.add(new Problem("units[" + i + "]", "unknown unit '" + units.get(i) + "'"));
                }
            }
            if (units.isEmpty()) {
                problems.add(new Problem("units", "[] (expected: at least one unit)"));
            }
            if (!problems.isEmpty()) {
                return Change.refused(invalid("fence", problems));
            }
            Map<String, FenceRecord> fences = new LinkedHashMap<>(current.fences());
            Instant now = clock.instant();
            units.forEach(u -> fences.putIfAbsent(u, new FenceRecord(u, reason.isEmpty() ? "fenced by " + actor
                                                                                        : reason, now, "")));
            return Change.to(current.withFences(fences), "fenced " + String.join(", ", units));
        });
    }

    Outcome liftFence(String actor, String unit, String reason) {
        return change(actor, "fence.lift", unit, reason, null, current -> {
            FenceRecord fence = current.fences().get(unit);
            if (fence == null) {
                return Change.refused(Outcome.problem(Outcome.Kind.NOT_FOUND, "unit '" + unit + "': not fenced"));
            }
            if (fence.ownedBySwitchover() && current.switchoverRunning()) {
                return Change.refused(Outcome.problem(Outcome.Kind.CONFLICT, "unit '" + unit + "': fenced by "
                        + "running switchover " + fence.switchover() + " (abort it instead)"));
            }
            Map<String, FenceRecord> fences = new LinkedHashMap<>(current.fences());
            fences.remove(unit);
            return Change.to(current.withFences(fences), "unfenced " + unit);
        });
    }

    /** A switchover request, read: the units (or the region to drain) and the limits it runs under. */
    private record Request(List<String> units, String target, long maxLagMs, Instant deadline, boolean dryRun,
                           boolean force, String reason) {}

    Outcome startSwitchover(String actor, JsonNode doc) {
        List<Problem> problems = new ArrayList<>();
        Request request = readRequest(doc, store.current(), problems);
        if (request == null) {
            Outcome refusal = invalid("switchover request", problems);
            record(actor, "switchover.start", "switchover", doc.path("reason").asText(""), refusal);
            return refusal;
        }
        return change(actor, request.dryRun ? "switchover.plan" : "switchover.start",
                      "units " + String.join(",", request.units) + " -> " + request.target, request.reason, null,
                      current -> {
            // Units without a stated load add nothing, so only the loads the rules state can overload a region.
            SwitchoverPlan plan = SwitchoverPlan.of(current.topology(), current.healthSnapshot(), current.homes(),
                    u -> current.rules().load(u).orElse(0), request.units, request.target, request.force);
            ObjectNode planJson = StateJson.plan(plan);
            // The state keeps the last switchover only, so the cooldown covers the units that one moved.
            List<Problem> cooling = cooldown.refusals(request.units, current.switchover() == null ? List.of()
                    : List.of(current.switchover()), clock.instant());
            if (!cooling.isEmpty()) {
                return Change.refused(Outcome.problem(Outcome.Kind.SWITCHOVER_REFUSED, cooling.get(0).toString(),
                                                      cooling, StateJson.MAPPER.createObjectNode()));
            }
            if (!plan.accepted()) {
                ObjectNode extra = StateJson.MAPPER.createObjectNode();
                extra.set("plan", planJson);
                return Change.refused(Outcome.problem(Outcome.Kind.SWITCHOVER_REFUSED, plan.refusals().stream()
                        .map(Problem::toString).reduce((a, b) -> a + "; " + b).orElse(""), plan.refusals(), extra));
            }
            if (current.switchoverRunning()) {
                return Change.refused(runningSwitchover(current));
            }
            ObjectNode body = StateJson.MAPPER.createObjectNode();
            body.set("plan", planJson);
            if (request.dryRun) {
                return Change.refused(Outcome.ok(body, current.revision()));
            }
            long count = current.switchoverCount() + 1;
            Switchover s = Switchover.start("sw-" + count, request.units, plan.target(), plan.origins(),
                    request.maxLagMs, request.deadline, request.force, actor, request.reason, clock.instant());
            body.set("switchover", StateJson.switchover(s));
            return Change.to(current.withSwitchover(s, count), s.steps().get(0).detail()).withBody(body);
        });
    }

    private Request readRequest(JsonNode doc, ControlState current, List<Problem> problems) {
        List<String> units = new ArrayList<>();
        doc.path("units").forEach(u -> units.add(u.asText()));
        String drain = doc.path("drain").asText("");
        String target = doc.path("target").asText("");
        if (!drain.isEmpty()) {
            if (!units.isEmpty()) {
                problems.add(new Problem("drain", "given with units (expected: one of units or drain)"));
            }
            current.homes().forEach((unit, home) -> {
                if (home.id().equals(drain)) {
                    units.add(unit);
                }
            });
            if (target.isEmpty() && current.topology() != null) {
                Optional<Region> drained = current.topology().region(drain);
                target = drained.flatMap(d -> current.topology().fallback(d).stream()
                                .filter(current.healthSnapshot()::isHealthy).findFirst())
                                .map(Region::id).orElse("");
            }
        }
        if (target.isEmpty()) {
            problems.add(new Problem("target", "missing (expected: a region id, or drain with a healthy fallback)"));
        }
        if (current.rules() == null) {
            problems.add(new Problem("", "no topology and rules applied yet"));
        }
        long maxLag = doc.path("max_lag_ms").asLong(1_000);
        if (maxLag < 0) {
            problems.add(new Problem("max_lag_ms", maxLag + " (expected: >= 0)"));
        }
        Instant deadline = clock.instant().plusSeconds(60);
        if (doc.hasNonNull("deadline")) {
            try {
                deadline = Instant.parse(doc.get("deadline").asText());
            } catch (DateTimeParseException e) {
                problems.add(new Problem("deadline", "'" + doc.get("deadline").asText()
                                         + "' (expected: an RFC 3339 instant)"));
            }
        } else if (doc.hasNonNull("timeout_ms")) {
            deadline = clock.instant().plusMillis(doc.get("timeout_ms").asLong());
        }
        if (!problems.isEmpty()) {
            return null;
        }
        return new Request(units, target, maxLag, deadline, doc.path("dry_run").asBoolean(false),
                           doc.path("force").asBoolean(false), doc.path("reason").asText(""));
    }

    Outcome abortSwitchover(String actor, String id, String reason) {
        return change(actor, "switchover.abort", id, reason, null, current -> {
            Switchover s = current.switchover();
            if (s == null || !s.id().equals(id)) {
                return Change.refused(Outcome.problem(Outcome.Kind.NOT_FOUND, "switchover '" + id
                        + "': not the current one"));
            }
            if (!s.abortable()) {
                return Change.refused(Outcome.problem(Outcome.Kind.CONFLICT, "switchover " + id + ": "
                        + s.phase().jsonName() + " (expected: fencing or catching_up to abort)"));
            }
            Switchover aborted = s.abort(clock.instant(), actor, reason);
            return Change.to(withEffects(current, aborted), aborted.outcome())
                         .withBody(StateJson.switchover(aborted));
        });
    }

    // ---- the leader's loop

    /** Marks stale and expired health reports, then advances a running switchover by one phase. */
    void tick() {
        Instant now = clock.instant();
        change("control", "health.freshness", "health", "", null, current -> {
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            List<String> changed = new ArrayList<>();
            health.replaceAll((region, entry) -> {
                HealthEntry.Freshness f = HealthEntry.freshness(entry.receivedAt(), now, healthTtl, healthGrace);
                if (f != entry.freshness()) {
                    changed.add(region + " " + f.jsonName() + " (last report received " + entry.receivedAt() + ")");
                }
                return entry.withFreshness(f);
            });
            return changed.isEmpty() ? Change.refused(null)
                                     : Change.to(current.withHealth(health), String.join("; ", changed));
        });
        Switchover running = store.current().switchover();
        change("control", "switchover.step", running == null ? "switchover" : running.id(), "", null, current -> {
            Switchover s = current.switchover();
            if (s == null || s.phase().terminal()) {
                return Change.refused(null);
            }
            HealthEntry target = current.health().get(s.target());
            Switchover next = s.advance(now, target == null ? RegionHealth.UNKNOWN_LAG : target.actionableLagMs());
            if (next == s) {
                return Change.refused(null);
            }
            return Change.to(withEffects(current, next), s.id() + " " + next.phase().jsonName() + ": "
                             + next.steps().get(next.steps().size() - 1).detail());
        });
    }

    /** The state with {@code next} in place and the effects of the phase it entered: fence, flip or unfence. */
    private static ControlState withEffects(ControlState current, Switchover next) {
        ControlState state = current.withSwitchover(next, current.switchoverCount());
        Map<String, FenceRecord> fences = new LinkedHashMap<>(current.fences());
        SwitchoverPhase phase = next.phase();
        Instant at = next.updatedAt();
        if (phase == SwitchoverPhase.CATCHING_UP) {
            // A fence an operator already holds stays theirs: lifting this switchover's fences must not lift it.
            next.units().forEach(u -> fences.putIfAbsent(u, new FenceRecord(u, "switchover " + next.id() + " to "
                                                                              + next.target(), at, next.id())));
        } else if (phase == SwitchoverPhase.FLIPPED) {
            Map<String, String> moves = new LinkedHashMap<>();
            next.units().forEach(u -> moves.put(u, next.target().id()));
            state = state.withRules(current.rules().remap(moves));
        } else if (phase.terminal()) {
            fences.values().removeIf(f -> f.switchover().equals(next.id()));
        }
        return state.withFences(fences);
    }

    // ---- plumbing

    /**
     * Computes and commits a change. With {@code ifMatch}, the change applies only to that revision (412
     * otherwise); without, a lost race re-reads and recomputes. A change whose refusal is {@code null} is a
     * silent no-op; a change with an empty detail is committed without an audit line (routine health reports).
     */
    private Outcome change(String actor, String action, String target, String reason, String ifMatch,
                           Function<ControlState, Change> compute) {
        Long expected = null;
        if (ifMatch != null) {
            try {
                expected = Long.parseLong(ifMatch.replace("\"", "").replace("W/", "").strip());
            } catch (NumberFormatException e) {
                return record(actor, action, target, reason, Outcome.problem(Outcome.Kind.BAD_REQUEST,
                        "If-Match: '" + ifMatch + "' (expected: a revision number)"));
            }
        }
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            ControlState current = store.current();
            if (expected != null && current.revision() != expected) {
                return record(actor, action, target, reason, stale(expected, current.revision()));
            }
            Change change = compute.apply(current);
            if (change.refusal() != null || change.next() == null) {
                return change.refusal() == null ? null
                       : change.refusal().failed() ? record(actor, action, target, reason, change.refusal())
                       : change.refusal();
            }
            Instant now = clock.instant();
            Optional<ControlState> landed = store.commit(change.next().at(current.revision() + 1, now));
            if (landed.isPresent()) {
                long revision = landed.get().revision();
                if (!change.detail().isEmpty()) {
                    store.audit(new AuditEntry(0, now, actor, action, target, "ok", reason, revision,
                                               change.detail()));
                }
                ObjectNode body = change.body() != null ? (ObjectNode) change.body()
                                                        : StateJson.MAPPER.createObjectNode();
                body.put("revision", revision);
                return action.equals("switchover.start") ? Outcome.accepted(body, revision)
                                                         : Outcome.ok(body, revision);
            }
            if (expected != null) {
                return record(actor, action, target, reason, stale(expected, store.current().revision()));
            }
        }
        return record(actor, action, target, reason, Outcome.problem(Outcome.Kind.CONFLICT,
                "lost " + RETRIES + " races to concurrent changes; try again"));
    }

    /** Records a refusal in the audit log and returns it. */
    Outcome record(String actor, String action, String target, String reason, Outcome refusal) {
        store.audit(new AuditEntry(0, clock.instant(), actor, action, target, refusal.kind().auditWord(), reason, 0,
                                   refusal.detail()));
        return refusal;
    }

    private static Outcome stale(long expected, long current) {
        return Outcome.problem(Outcome.Kind.STALE_REVISION, "If-Match: revision " + expected
                + " is stale (current: " + current + ")");
    }

    private static Outcome invalid(String what, List<Problem> problems) {
        return Outcome.problem(Outcome.Kind.INVALID_DOCUMENT, what + ": " + problems.size() + " problem"
                + (problems.size() == 1 ? "" : "s"), problems, null);
    }

    /** A 422 for a document, with its problems by path and as the reader's {@code name:line:} lines. */
    private static Outcome invalid(String what, Documents.Read<?> read) {
        ObjectNode extra = StateJson.MAPPER.createObjectNode();
        ArrayNode lines = extra.putArray("errors");
        read.lines().forEach(lines::add);
        return Outcome.problem(Outcome.Kind.INVALID_DOCUMENT, what + ": " + read.problems().size() + " problem"
                + (read.problems().size() == 1 ? "" : "s"), read.problems(), extra);
    }

    private static Outcome runningSwitchover(ControlState current) {
        return Outcome.problem(Outcome.Kind.CONFLICT, "switchover " + current.switchover().id() + " is "
                + current.switchover().phase().jsonName() + " (expected: none running; one at a time)");
    }

}
