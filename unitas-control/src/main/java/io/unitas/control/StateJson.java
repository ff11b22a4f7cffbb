package io.unitas.control;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.config.internal.DurationFormat;
import io.unitas.config.FailoverPolicyFile;
import io.unitas.config.HealthReportJson;
import io.unitas.config.UnitRulesFile;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.health.UnitLink;
import io.unitas.core.health.UnitPositions;
import io.unitas.core.health.UnitReconciliation;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverPhase;
import io.unitas.core.switchover.SwitchoverPlan;
import io.unitas.core.switchover.SwitchoverStep;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.FenceRecord;

/**
 * The one JSON form of the control-plane state and its parts, used alike by the stores, the API and the
 * watch stream, so what is persisted is exactly what clients see.
 */
final class StateJson {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private StateJson() {}

    static String write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode parse(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage(), e);
        }
    }

    static ObjectNode state(ControlState s) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("revision", s.revision());
        o.put("updated_at", s.updatedAt().toString());
        o.set("topology", s.topology() == null ? MAPPER.nullNode() : topology(s.topology()));
        o.set("rules", s.rules() == null ? MAPPER.nullNode() : UnitRulesFile.toTree(s.rules()));
        ObjectNode fences = o.putObject("fences");
        s.fences().forEach((unit, f) -> fences.set(unit, fence(f)));
        ObjectNode health = o.putObject("health");
        s.health().forEach((region, h) -> health.set(region.id(), health(h)));
        o.set("switchover", s.switchover() == null ? MAPPER.nullNode() : switchover(s.switchover()));
        o.put("switchover_count", s.switchoverCount());
        o.set("failover", FailoverPolicyFile.toTree(s.failover()));
        ObjectNode faults = o.putObject("faults");
        s.faults().forEach((region, since) -> faults.put(region.id(), since.toString()));
        ArrayNode proposals = o.putArray("proposals");
        s.proposals().forEach(p -> proposals.add(proposal(p)));
        return o;
    }

    /**
     * The state as readers see it ({@code GET /api/v1/state}, the watch): {@link #state} and what is derived from it,
     * the lag per unit and link from the health entries' positions ({@code unit_links}). Never stored: it is
     * recomputed from what is.
     */
    static ObjectNode view(ControlState s) {
        ObjectNode o = state(s);
        ArrayNode links = o.putArray("unit_links");
        s.unitLinks().forEach(l -> links.add(unitLink(l)));
        return o;
    }

    static ObjectNode unitLink(UnitLink l) {
        return MAPPER.createObjectNode().put("unit", l.unit()).put("from", l.from().id()).put("to", l.to().id())
                     .put("changes", l.changes()).put("lag_ms", l.lagMs()).put("exact", l.exact())
                     .put("measured_at", l.measuredAt().toString());
    }

    static ObjectNode proposal(Proposal p) {
        ObjectNode o = MAPPER.createObjectNode().put("id", p.id()).put("group", p.group()).put("from", p.from().id())
                             .put("to", p.to().id());
        p.units().forEach(o.putArray("units")::add);
        return o.put("promote", p.promote()).put("why", p.why()).put("since", p.since().toString());
    }

    static Proposal readProposal(JsonNode o) {
        List<String> units = new ArrayList<>();
        o.path("units").forEach(u -> units.add(u.asText()));
        return new Proposal(o.path("id").asText(), o.path("group").asText(), Region.of(o.path("from").asText()),
                            Region.of(o.path("to").asText()), units, o.path("promote").asBoolean(),
                            o.path("why").asText(), Instant.parse(o.path("since").asText()));
    }

    static ControlState readState(JsonNode o) {
        Topology topology = o.path("topology").isObject() ? Documents.topology("topology.json",
                write(o.get("topology"))).value() : null;
        UnitRules rules = o.path("rules").isObject() ? Documents.rules(Documents.RULES_JSON, write(o.get("rules")),
                                                                         topology).value() : null;
        Map<String, FenceRecord> fences = new LinkedHashMap<>();
        o.path("fences").properties().forEach(e -> fences.put(e.getKey(), readFence(e.getKey(), e.getValue())));
        Map<Region, HealthEntry> health = new LinkedHashMap<>();
        o.path("health").properties().forEach(e -> health.put(Region.of(e.getKey()), readHealth(Region.of(e.getKey()), e.getValue())));
        Switchover sw = o.path("switchover").isObject() ? readSwitchover(o.get("switchover")) : null;
        FailoverPolicy failover = o.path("failover").isObject() ? FailoverPolicyFile.parse(ConfigDocument.parse(
                "failover.json", write(o.get("failover")))) : FailoverPolicy.NONE;
        Map<Region, Instant> faults = new LinkedHashMap<>();
        o.path("faults").properties().forEach(e -> faults.put(Region.of(e.getKey()),
                                                                   Instant.parse(e.getValue().asText())));
        List<Proposal> proposals = new ArrayList<>();
        o.path("proposals").forEach(p -> proposals.add(readProposal(p)));
        return new ControlState(o.path("revision").asLong(), Instant.parse(o.path("updated_at").asText()), topology,
                                rules, fences, health, sw, o.path("switchover_count").asLong(), failover, faults,
                                proposals);
    }

    static ObjectNode topology(Topology t) {
        ObjectNode o = MAPPER.createObjectNode();
        ArrayNode regions = o.putArray("regions");
        for (Region r : t.regions()) {
            ObjectNode region = regions.addObject().put("id", r.id());
            t.capacity(r).ifPresent(c -> region.put("capacity", c));
        }
        if (!t.explicitFallbacks().isEmpty()) {
            ObjectNode fallback = o.putObject("fallback");
            t.explicitFallbacks().forEach((home, list) -> {
                ArrayNode ids = fallback.putArray(home.id());
                list.forEach(r -> ids.add(r.id()));
            });
        }
        t.center().ifPresent(c -> o.put("center", c.id()));
        return o;
    }

    static ObjectNode fence(FenceRecord f) {
        return MAPPER.createObjectNode().put("reason", f.reason()).put("since", f.since().toString())
                     .put("switchover", f.switchover()).put("retry_after", DurationFormat.format(f.retryAfter()));
    }

    /** A fence as stored; one stored before fences said their retry-after tells the default. */
    static FenceRecord readFence(String unit, JsonNode o) {
        return new FenceRecord(unit, o.path("reason").asText(), Instant.parse(o.path("since").asText()),
                              o.path("switchover").asText(""), o.has("retry_after")
                                      ? DurationFormat.parsePositive(o.get("retry_after").asText())
                                      : FencePolicy.DEFAULT_RETRY_AFTER);
    }

    static ObjectNode health(HealthEntry h) {
        RegionHealth effective = h.effective();
        ObjectNode o = MAPPER.createObjectNode();
        o.put("healthy", effective.healthy());
        o.put("writable", effective.writable());
        o.put("replication_lag_ms", h.reported().replicationLagMs());
        o.put("score", effective.score());
        ArrayNode reasons = o.putArray("reasons");
        effective.reasons().forEach(reasons::add);
        o.put("freshness", h.freshness().jsonName());
        o.put("sequence", h.sequence());
        o.put("observed_at", h.observedAt().toString());
        o.put("received_at", h.receivedAt().toString());
        o.put("reported_healthy", h.reported().healthy());
        o.put("reported_writable", h.reported().writable());
        o.put("reported_score", h.reported().score());
        ArrayNode reported = o.putArray("reported_reasons");
        h.reported().reasons().forEach(reported::add);
        o.set("checks", h.checks());
        if (!h.unitLags().isEmpty()) {
            o.set("unit_lag", HealthReportJson.unitLagTree(h.unitLags()));
        }
        if (h.positions().known()) {
            o.set("positions", HealthReportJson.positionsTree(h.positions()));
        }
        if (h.reconciliation().known()) {
            o.set("reconciliation", HealthReportJson.reconciliationTree(h.reconciliation()));
        }
        return o;
    }

    static HealthEntry readHealth(Region region, JsonNode o) {
        List<String> reasons = new ArrayList<>();
        o.path("reported_reasons").forEach(r -> reasons.add(r.asText()));
        RegionHealth reported = new RegionHealth(o.path("reported_healthy").asBoolean(),
                o.path("reported_writable").asBoolean(), o.path("replication_lag_ms").asLong(-1),
                o.path("reported_score").asDouble(), reasons);
        return new HealthEntry(region, o.path("sequence").asLong(), Instant.parse(o.path("observed_at").asText()),
                               Instant.parse(o.path("received_at").asText()), reported, o.path("checks"),
                               HealthEntry.Freshness.valueOf(o.path("freshness").asText().toUpperCase(
                                       java.util.Locale.ROOT)),
                               o.path("unit_lag").isObject() ? HealthReportJson.readUnitLags(o.get("unit_lag"))
                                                             : List.of(),
                               o.path("positions").isObject() ? HealthReportJson.readPositions(o.get("positions"))
                                                              : UnitPositions.NONE,
                               o.path("reconciliation").isObject()
                                       ? HealthReportJson.readReconciliation(o.get("reconciliation"))
                                       : UnitReconciliation.NONE);
    }

    static ObjectNode switchover(Switchover s) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("id", s.id());
        o.put("phase", s.phase().jsonName());
        ArrayNode units = o.putArray("units");
        s.units().forEach(units::add);
        o.put("target", s.target().id());
        ObjectNode origins = o.putObject("origins");
        s.origins().forEach((u, r) -> origins.put(u, r.id()));
        o.put("max_lag", DurationFormat.format(java.time.Duration.ofMillis(s.maxLagMs())));
        o.put("max_lag_ms", s.maxLagMs()); // as before max_lag was a duration; kept for this release
        o.put("deadline", s.deadline().toString());
        o.put("forced", s.forced());
        o.put("requested_by", s.requestedBy());
        o.put("reason", s.reason());
        o.put("outcome", s.outcome());
        if (s.promotion()) {
            ObjectNode rpo = o.putObject("rpo_ms");
            s.rpoMs().forEach(rpo::put);
            if (!s.rpoChanges().isEmpty()) {
                ObjectNode changes = o.putObject("rpo_changes");
                s.rpoChanges().forEach(changes::put);
            }
        }
        ArrayNode steps = o.putArray("steps");
        for (SwitchoverStep step : s.steps()) {
            steps.addObject().put("phase", step.phase().jsonName()).put("at", step.at().toString())
                 .put("detail", step.detail());
        }
        return o;
    }

    static Switchover readSwitchover(JsonNode o) {
        List<String> units = new ArrayList<>();
        o.path("units").forEach(u -> units.add(u.asText()));
        Map<String, Region> origins = new LinkedHashMap<>();
        o.path("origins").properties().forEach(e -> origins.put(e.getKey(), Region.of(e.getValue().asText())));
        List<SwitchoverStep> steps = new ArrayList<>();
        o.path("steps").forEach(s -> steps.add(new SwitchoverStep(SwitchoverPhase.fromJson(s.path("phase").asText()),
                Instant.parse(s.path("at").asText()), s.path("detail").asText())));
        Map<String, Long> rpo = new LinkedHashMap<>();
        o.path("rpo_ms").properties().forEach(e -> rpo.put(e.getKey(), e.getValue().asLong()));
        Map<String, Long> rpoChanges = new LinkedHashMap<>();
        o.path("rpo_changes").properties().forEach(e -> rpoChanges.put(e.getKey(), e.getValue().asLong()));
        return new Switchover(o.path("id").asText(), units, Region.of(o.path("target").asText()), origins,
                              o.path("max_lag_ms").asLong(), Instant.parse(o.path("deadline").asText()),
                              o.path("forced").asBoolean(), o.path("requested_by").asText(),
                              o.path("reason").asText(), SwitchoverPhase.fromJson(o.path("phase").asText()), steps,
                              o.path("outcome").asText(), rpo, rpoChanges);
    }

    static ObjectNode plan(SwitchoverPlan p) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("accepted", p.accepted());
        o.put("target", p.target() == null ? null : p.target().id());
        ArrayNode moves = o.putArray("moves");
        p.moves().forEach(m -> moves.addObject().put("unit", m.unit()).put("from", m.from().id())
                                    .put("to", m.to().id()).put("load", m.load()));
        ObjectNode load = o.putObject("load");
        p.loadBefore().forEach((region, before) -> load.putObject(region.id()).put("before", before)
                                                    .put("after", p.loadAfter().get(region)));
        o.set("refusals", problems(p.refusals()));
        o.set("warnings", problems(p.warnings()));
        return o;
    }

    static ArrayNode problems(List<Problem> problems) {
        ArrayNode a = MAPPER.createArrayNode();
        problems.forEach(p -> a.addObject().put("path", p.path()).put("message", p.message()));
        return a;
    }
}
