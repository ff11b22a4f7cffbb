package io.unitas.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.MovingLag;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverPhase;
import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.core.switchover.SwitchoverPlan;
import io.unitas.core.consistency.ConsistencyCheck;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.fence.FenceRecord;

/**
 * Every operation on the control-plane state: each validates its change against the whole state, commits it as
 * the next revision (compare-and-set, retried for changes that do not name a revision), and records it, or its
 * refusal, in the audit log. The one owner of state transitions. Typed commands in, {@link ChangeResult}s and state
 * out: no HTTP, JSON or header here; {@link ControlApi} translates.
 */
final class ControlService {

    private static final Logger log = LoggerFactory.getLogger(ControlService.class);

    /** Retries of a commit that lost a race to another change, for changes without If-Match. */
    private static final int RETRIES = 20;

    /** The revision a change that does not name one applies to: whichever is current. */
    static final long ANY = -1;

    /** Who the failover policy's own changes are recorded as. */
    static final String POLICY_ACTOR = "failover-policy";
    /** How often the leader's loop ticks unless told otherwise. */
    static final Duration DEFAULT_TICK = Duration.ofMillis(100);
    /** The least time between two automatic attempts for one group and home, when its after is shorter. */
    private static final Duration LEAST_RETRY = Duration.ofSeconds(5);

    private final LongAdder auditFailures = new LongAdder();
    /** When the policy last started a move per proposal id ({@code group@home}); the leader's memory only. */
    private final Map<String, Instant> lastAttempt = new ConcurrentHashMap<>();
    /** Per group and home, whether the policy's last attempt was a promotion. */
    private final Map<String, Boolean> lastAttemptPromoted = new ConcurrentHashMap<>();
    /** Since when this instance leads (its first tick as leader); null while it does not. The tick thread's own. */
    private Instant leadingSince;

    /**
     * The other regions' reports of regions they cannot reach, as this replica received them. Kept in memory, not in
     * the store: evidence lives no longer than a health TTL, and a new leader waits out the grace as before.
     */
    private final AtomicReference<PeerEvidence> evidence = new AtomicReference<>(PeerEvidence.NONE);
    /** The control plane's own meters, served at {@code /metrics}. */
    private final ControlMetrics metrics;
    private final LongAdder audited = new LongAdder();
    /** Nanoseconds for the commit latency; a test's own ticker makes it exact. */
    private final LongSupplier nanos;
    /** The address of the client whose request is being served, for the audit; empty outside a request. */
    private final Supplier<String> client;

    private final StateStore store;
    private final Clock clock;
    private final Duration healthTtl;
    private final Duration healthGrace;
    private final Duration healthTtlWithEvidence;
    private final SwitchoverCooldown cooldown;
    private final Duration healthClockSkew;
    private final Duration tickInterval;
    /** The residency groups a switchover or promotion may not move a unit out of. */
    private final ConsistencyContract residency;

    /** With {@code tick}, how often the leader's loop calls {@link #tick()}: how long a promotion's fence holds. */
    ControlService(StateStore store, Clock clock, Duration healthTtl, Duration healthGrace,
                   Duration healthTtlWithEvidence, SwitchoverCooldown cooldown, Duration healthClockSkew,
                   Duration tick) {
        this(store, clock, healthTtl, healthGrace, healthTtlWithEvidence, cooldown, healthClockSkew, tick,
             new ConsistencyContract(List.of(), List.of(), List.of()));
    }

    /** As above, refusing moves out of the residency groups of {@code residency}. */
    ControlService(StateStore store, Clock clock, Duration healthTtl, Duration healthGrace,
                   Duration healthTtlWithEvidence, SwitchoverCooldown cooldown, Duration healthClockSkew,
                   Duration tick, ConsistencyContract residency) {
        this(store, clock, healthTtl, healthGrace, healthTtlWithEvidence, cooldown, healthClockSkew, tick, residency,
             new ControlMetrics(), System::nanoTime, () -> "");
    }

    /**
     * As above, counting into {@code metrics}, timing commits with {@code nanos}, and recording in each audit entry
     * the address {@code client} names for the request being served (empty when none is: the leader's own changes).
     */
    ControlService(StateStore store, Clock clock, Duration healthTtl, Duration healthGrace,
                   Duration healthTtlWithEvidence, SwitchoverCooldown cooldown, Duration healthClockSkew,
                   Duration tick, ConsistencyContract residency, ControlMetrics metrics, LongSupplier nanos,
                   Supplier<String> client) {
        this.metrics = metrics;
        this.client = client;
        this.nanos = nanos;
        this.residency = residency;
        this.tickInterval = tick;
        this.store = store;
        this.clock = clock;
        this.healthTtl = healthTtl;
        this.healthGrace = healthGrace;
        this.healthTtlWithEvidence = healthTtlWithEvidence;
        this.cooldown = cooldown;
        this.healthClockSkew = healthClockSkew;
        metrics.gauge("unitas_control_leader", "1 while this replica leads (runs switchovers and health expiry)",
                      () -> store.leader() ? 1 : 0);
        metrics.gauge("unitas_control_revision", "the newest revision of the state this replica knows",
                      () -> store.current().revision());
        metrics.count("unitas_control_audit_entries_total", "audit entries written (changes and refusals)",
                      audited::sum);
        metrics.count("unitas_control_audit_failures_total", "audit entries that could not be written",
                      auditFailures::sum);
    }

    /** The meters {@code /metrics} serves; the server adds the watch hub's. */
    ControlMetrics metrics() {
        return metrics;
    }

    StateStore store() {
        return store;
    }

    /** The control plane's meters in Prometheus's text format. */
    String scrapeMetrics() {
        return metrics.scrape();
    }

    /**
     * What a report that a region is unreachable did: {@code counted} as evidence, or ignored and why
     * ({@code detail}); or the {@code refusal} when it could not be taken.
     */
    record Evidence(boolean counted, String detail, Refusal refusal) {}

    /**
     * {@code observerId}'s report that it cannot connect to any endpoint of {@code regionId} it tried: evidence that,
     * once the region's own last report is stale, takes it down without waiting for the grace ({@link
     * HealthEntry#freshness(Instant, Instant, Instant, Duration, Duration, Optional, HealthEntry.Freshness)}). A
     * region's report about itself is ignored. Counted in {@code unitas_control_unreachable_reports_total}.
     */
    Evidence reportUnreachable(String actor, String regionId, String observerId) {
        ControlState current = store.current();
        Topology topology = current.topology();
        Optional<Region> region = topology == null ? Optional.empty() : topology.region(regionId);
        if (region.isEmpty()) {
            return refused(actor, regionId, Refusal.of(Refusal.Kind.NOT_FOUND, "region '" + regionId
                    + "': not in the topology"));
        }
        Optional<Region> observer = topology.region(observerId);
        if (observer.isEmpty()) {
            String known = String.join(", ", topology.regions().stream().map(Region::id).toList());
            return refused(actor, regionId, new Refusal(Refusal.Kind.BAD_REQUEST, "observer: '" + observerId
                    + "' (expected: a region of the topology: " + known + ")", List.of(new Problem("observer", "'"
                    + observerId + "' (expected: a region of the topology: " + known + ")")), List.of(), null));
        }
        boolean self = observer.get().equals(region.get());
        metrics.increment("unitas_control_unreachable_reports_total",
                          "Reports that a region is unreachable from another, by region, observer and result",
                          "region", region.get().id(), "observer", observer.get().id(), "result",
                          self ? "ignored_self" : "counted");
        if (self) {
            return new Evidence(false, "a region's report about itself is ignored", null);
        }
        Instant now = clock.instant();
        evidence.updateAndGet(e -> e.with(region.get(), observer.get(), now));
        return new Evidence(true, region.get() + " unreachable from " + observer.get() + " at " + now, null);
    }

    private Evidence refused(String actor, String regionId, Refusal refusal) {
        return new Evidence(false, refusal.detail(), refuse(actor, "health.unreachable", regionId, "", refusal));
    }

    /** A document as it was sent: the name errors carry ({@code rules.yaml}, {@code topology.json}) and its text. */
    record Document(String name, String text) {}

    /**
     * A switchover asked for: the units to move (or the region to drain, all its units), the target (empty:
     * the drained region's first healthy fallback), the moving units' lag at or below which writes flip, and the
     * deadline (or, when null, {@code timeout} from now; when both are null, 60 s from now). A promotion moves
     * the units without waiting on their lag and records each one's last known lag as its RPO.
     */
    record SwitchoverRequest(List<String> units, String drain, String target, long maxLagMs, Instant deadline,
                             Duration timeout, boolean dryRun, boolean force, String reason, boolean promote) {
        SwitchoverRequest {
            units = List.copyOf(units);
        }

        /** A switchover that waits on lag. */
        SwitchoverRequest(List<String> units, String drain, String target, long maxLagMs, Instant deadline,
                          Duration timeout, boolean dryRun, boolean force, String reason) {
            this(units, drain, target, maxLagMs, deadline, timeout, dryRun, force, reason, false);
        }
    }

    /** A change computed from the current state: the next state and what changed, or a result without one. */
    private record Change(ControlState next, String detail, SwitchoverPlan plan, Switchover switchover,
                          ChangeResult otherwise) {
        static Change to(ControlState next, String detail) {
            return new Change(next, detail, null, null, null);
        }

        static Change refused(Refusal refusal) {
            return new Change(null, null, null, null, new ChangeResult.Refused(refusal));
        }

        static Change none() {
            return new Change(null, null, null, null, new ChangeResult.Unchanged());
        }

        static Change planned(SwitchoverPlan plan, long revision) {
            return new Change(null, null, null, null, new ChangeResult.Planned(plan, revision));
        }

        Change with(SwitchoverPlan p, Switchover s) {
            return new Change(next, detail, p, s, otherwise);
        }
    }

    // ---- reads

    /** The current state. */
    ControlState state() {
        return store.current();
    }

    /** The current or last switchover when {@code id} names it (or is {@code current}). */
    Optional<Switchover> switchover(String id) {
        Switchover s = store.current().switchover();
        return s != null && (s.id().equals(id) || "current".equals(id)) ? Optional.of(s) : Optional.empty();
    }

    /** The newest {@code limit} audit entries after {@code afterSeq}, oldest first. */
    List<AuditEntry> audit(long afterSeq, int limit) {
        return store.audit(afterSeq, limit);
    }

    // ---- changes

    ChangeResult replaceTopology(String actor, long ifRevision, Document doc, String reason) {
        return change(actor, "topology.replace", "topology", reason, ifRevision, current -> {
            Documents.Read<Topology> topology = Documents.topology(doc.name(), doc.text());
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
            List<Problem> policy = policyProblems(current.failover(), topology.value(), rules);
            if (!policy.isEmpty()) {
                return Change.refused(Refusal.invalid("the current failover policy against this topology", policy));
            }
            if (current.switchoverRunning()) {
                return Change.refused(runningSwitchover(current));
            }
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.keySet().removeIf(r -> !topology.value().contains(r));
            Map<Region, Instant> faults = new LinkedHashMap<>(current.faults());
            faults.keySet().removeIf(r -> !topology.value().contains(r));
            return Change.to(current.withTopology(topology.value()).withRules(rules).withHealth(health)
                                    .withFaults(faults),
                             "regions " + topology.value().regions() + (current.topology() == null ? ""
                                     : " (were " + current.topology().regions() + ")"));
        });
    }

    ChangeResult replaceRules(String actor, long ifRevision, Document doc, String reason) {
        return change(actor, "rules.replace", "rules", reason, ifRevision, current -> {
            Documents.Read<UnitRules> rules = Documents.rules(doc.name(), doc.text(), current.topology());
            if (!rules.ok()) {
                return Change.refused(invalid("rules", rules));
            }
            List<Problem> policy = policyProblems(current.failover(), current.topology(), rules.value());
            if (!policy.isEmpty()) {
                return Change.refused(Refusal.invalid("the current failover policy against these rules", policy));
            }
            if (current.switchoverRunning()) {
                return Change.refused(runningSwitchover(current));
            }
            return Change.to(current.withRules(rules.value()), rules.value().units().size() + " units, "
                                                                 + rules.value().ranges().size() + " ranges");
        });
    }

    ChangeResult replaceFailover(String actor, long ifRevision, Document doc, String reason) {
        return change(actor, "failover.replace", "failover", reason, ifRevision, current -> {
            Documents.Read<FailoverPolicy> policy = Documents.failover(doc.name(), doc.text(), current.topology(),
                                                                       current.rules());
            if (!policy.ok()) {
                return Change.refused(invalid("failover policy", policy));
            }
            List<String> groups = new ArrayList<>();
            policy.value().groups().forEach(g -> groups.add(g.name() + " (" + g.mode().jsonName() + ")"));
            return Change.to(current.withFailover(policy.value()).withProposals(List.of()),
                             groups.isEmpty() ? "no groups: nothing moves by itself" : String.join(", ", groups));
        });
    }

    /**
     * Accepts a pending proposal of the failover policy: starts the switchover (or promotion) it proposes, as
     * {@code actor}, with the group's timeout; the proposal is gone once the move has started.
     */
    ChangeResult acceptProposal(String actor, String id, String reason) {
        ControlState current = store.current();
        Proposal proposal = current.proposals().stream().filter(p -> p.id().equals(id)).findFirst().orElse(null);
        if (proposal == null) {
            return new ChangeResult.Refused(refuse(actor, "proposal.accept", id, reason, Refusal.of(
                    Refusal.Kind.NOT_FOUND, "proposal '" + id + "': not pending")));
        }
        Duration timeout = current.failover().groups().stream().filter(g -> g.name().equals(proposal.group()))
                                  .map(FailoverPolicy.Group::timeout).findFirst().orElse(Duration.ofSeconds(60));
        ChangeResult started = startSwitchover(actor, new SwitchoverRequest(proposal.units(), "",
                proposal.to().id(), 0, null, timeout, false, false, reason.isEmpty() ? "accepted proposal " + id
                                                                                    + ": " + proposal.why() : reason,
                proposal.promote()));
        if (started instanceof ChangeResult.Applied) {
            change(actor, "proposal.accept", id, reason, ANY, state -> {
                List<Proposal> left = new ArrayList<>(state.proposals());
                left.removeIf(p -> p.id().equals(id));
                return Change.to(state.withProposals(left), "accepted: " + String.join(", ", proposal.units())
                                                            + " -> " + proposal.to());
            });
        }
        return started;
    }

    ChangeResult reportHealth(String actor, String regionId, Document doc) {
        return change(actor, "health.report", regionId, "", ANY, current -> {
            Optional<Region> region = current.topology() == null ? Optional.empty()
                                                                  : current.topology().region(regionId);
            if (region.isEmpty()) {
                return Change.refused(Refusal.of(Refusal.Kind.NOT_FOUND, "region '" + regionId
                        + "': not in the topology"));
            }
            Documents.Read<HealthReport> read = Documents.healthReport(doc.text());
            if (!read.ok()) {
                return Change.refused(invalid("health report", read));
            }
            HealthReport report = read.value();
            if (!report.region().equals(region.get())) {
                return Change.refused(Refusal.invalid("health report", List.of(new Problem("region", "'"
                        + report.region() + "' (expected: '" + region.get() + "' as in the path)"))));
            }
            Instant latest = clock.instant().plus(healthClockSkew);
            if (report.observedAt().isAfter(latest)) {
                return Change.refused(Refusal.invalid("health report", List.of(new Problem("observed_at",
                        report.observedAt() + " is ahead of the control plane's clock (expected: at most " + latest
                        + ", now + " + healthClockSkew.toSeconds() + "s of allowed skew)"))));
            }
            HealthEntry last = current.health().get(region.get());
            if (last != null && report.sequence() <= last.sequence()
                && !report.observedAt().isAfter(last.observedAt())) {
                return Change.refused(Refusal.of(Refusal.Kind.CONFLICT, "sequence " + report.sequence()
                        + " observed at " + report.observedAt() + " is not newer than sequence " + last.sequence()));
            }
            HealthEntry entry = HealthEntry.received(report, clock.instant());
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.put(region.get(), entry);
            String detail = "healthy=" + entry.reported().healthy() + " writable=" + entry.reported().writable()
                            + " lag=" + entry.reported().replicationLagMs() + "ms";
            boolean flipped = last == null || last.effective().healthy() != entry.reported().healthy()
                              || last.reported().writable() != entry.reported().writable();
            return Change.to(current.withHealth(health), flipped ? detail : "");
        });
    }

    /**
     * Forgets a region's last report, so that its agent's next report is taken whatever its sequence; until then the
     * region counts as unhealthy (no health reported). For a region whose reports a forged one blocks.
     */
    ChangeResult resetHealth(String actor, String regionId, String reason) {
        return change(actor, "health.reset", regionId, reason, ANY, current -> {
            Optional<Region> region = current.topology() == null ? Optional.empty()
                                                                  : current.topology().region(regionId);
            if (region.isEmpty()) {
                return Change.refused(Refusal.of(Refusal.Kind.NOT_FOUND, "region '" + regionId
                        + "': not in the topology"));
            }
            HealthEntry last = current.health().get(region.get());
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            health.remove(region.get());
            return Change.to(current.withHealth(health), "health of " + regionId + " forgotten"
                    + (last == null ? " (none reported)" : " (last: sequence " + last.sequence() + " observed at "
                                                           + last.observedAt() + ")"));
        });
    }

    /**
     * Fences writes of {@code units} (those fenced already keep their fence), refused writes told to come back after
     * {@code retryAfter}: about as long as the operator expects the fence to hold.
     */
    ChangeResult addFences(String actor, List<String> units, String reason, Duration retryAfter) {
        return change(actor, "fence.add", String.join(",", units), reason, ANY, current -> {
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
                return Change.refused(Refusal.invalid("fence", problems));
            }
            Map<String, FenceRecord> fences = new LinkedHashMap<>(current.fences());
            Instant now = clock.instant();
            units.forEach(u -> fences.putIfAbsent(u, new FenceRecord(u, reason.isEmpty() ? "fenced by " + actor
                                                                                        : reason, now, "",
                                                                      retryAfter)));
            return Change.to(current.withFences(fences), "fenced " + String.join(", ", units));
        });
    }

    ChangeResult liftFence(String actor, String unit, String reason) {
        return change(actor, "fence.lift", unit, reason, ANY, current -> {
            FenceRecord fence = current.fences().get(unit);
            if (fence == null) {
                return Change.refused(Refusal.of(Refusal.Kind.NOT_FOUND, "unit '" + unit + "': not fenced"));
            }
            if (fence.ownedBySwitchover() && current.switchoverRunning()) {
                return Change.refused(Refusal.of(Refusal.Kind.CONFLICT, "unit '" + unit + "': fenced by "
                        + "running switchover " + fence.switchover() + " (abort it instead)"));
            }
            Map<String, FenceRecord> fences = new LinkedHashMap<>(current.fences());
            fences.remove(unit);
            return Change.to(current.withFences(fences), "unfenced " + unit);
        });
    }

    ChangeResult startSwitchover(String actor, SwitchoverRequest request) {
        List<Problem> problems = new ArrayList<>();
        Resolved resolved = resolve(request, store.current(), problems);
        if (resolved == null) {
            return new ChangeResult.Refused(refuse(actor, "switchover.start", "switchover", request.reason(),
                                                   Refusal.invalid("switchover request", problems)));
        }
        return change(actor, request.dryRun() ? "switchover.plan"
                             : request.promote() ? "switchover.promote" : "switchover.start",
                      "units " + String.join(",", resolved.units) + " -> " + resolved.target, request.reason(), ANY,
                      current -> {
            List<Problem> outside = residencyRefusals(current, resolved);
            if (!outside.isEmpty()) {
                return Change.refused(new Refusal(Refusal.Kind.SWITCHOVER_REFUSED, outside.stream()
                        .map(Problem::toString).reduce((a, b) -> a + "; " + b).orElse(""), outside, List.of(), null));
            }
            // Units without a stated load add nothing, so only the loads the rules state can overload a region.
            SwitchoverPlan plan = SwitchoverPlan.of(current.topology(), current.healthSnapshot(), current.homes(),
                    u -> current.rules().load(u).orElse(0), resolved.units, resolved.target, request.force());
            // The state keeps the last switchover only, so the cooldown covers the units that one moved.
            List<Problem> cooling = cooldown.refusals(resolved.units, current.switchover() == null ? List.of()
                    : List.of(current.switchover()), clock.instant());
            if (!cooling.isEmpty()) {
                return Change.refused(new Refusal(Refusal.Kind.SWITCHOVER_REFUSED, cooling.get(0).toString(),
                                                  cooling, List.of(), null));
            }
            if (!plan.accepted()) {
                return Change.refused(new Refusal(Refusal.Kind.SWITCHOVER_REFUSED, plan.refusals().stream()
                        .map(Problem::toString).reduce((a, b) -> a + "; " + b).orElse(""), plan.refusals(),
                        List.of(), plan));
            }
            if (current.switchoverRunning()) {
                return Change.refused(runningSwitchover(current));
            }
            if (request.dryRun()) {
                return Change.planned(plan, current.revision());
            }
            long count = current.switchoverCount() + 1;
            Switchover s = request.promote()
                    ? Switchover.promote("sw-" + count, resolved.units, plan.target(), plan.origins(),
                            lastKnownLags(current, plan, UnitLag::lagMs, RegionHealth.UNKNOWN_LAG),
                            lastKnownLags(current, plan, UnitLag::changes, UnitLag.UNKNOWN_CHANGES),
                            resolved.deadline, request.force(), actor, request.reason(), clock.instant())
                    : Switchover.start("sw-" + count, resolved.units, plan.target(), plan.origins(),
                            request.maxLagMs(), resolved.deadline, request.force(), actor, request.reason(),
                            clock.instant());
            return Change.to(current.withSwitchover(s, count), s.steps().get(0).detail()).with(plan, s);
        });
    }

    /**
     * A problem for each moving unit that the move would place outside its residency group ({@code units[i]}), naming
     * the rule and where the group is claimed; {@code force} does not override it.
     */
    private List<Problem> residencyRefusals(ControlState current, Resolved resolved) {
        List<Problem> problems = new ArrayList<>();
        Region to = Region.isValidId(resolved.target) ? Region.of(resolved.target) : null;
        for (int i = 0; i < resolved.units.size() && to != null; i++) {
            Region from = current.homes().get(resolved.units.get(i));
            if (from != null) {
                int at = i;
                ConsistencyCheck.move(residency, resolved.units.get(i), from, to).ifPresent(v -> problems.add(
                        new Problem("units[" + at + "]", v.message() + " (" + v.where() + ") [" + v.rule().id()
                                                         + "]")));
            }
        }
        return problems;
    }

    /**
     * One figure of each moving unit's lag to the target as last known, however old its home's report (measured by
     * the home, or from its and the target's positions): what a promotion may lose (its RPO); {@code unknown} when
     * neither was ever reported.
     */
    private static Map<String, Long> lastKnownLags(ControlState current, SwitchoverPlan plan,
                                                   java.util.function.ToLongFunction<UnitLag> figure, long unknown) {
        Map<String, Long> lags = new LinkedHashMap<>();
        Function<Region, Optional<HealthReport>> reports = current.lagReports(false);
        for (SwitchoverPlan.Move move : plan.moves()) {
            lags.put(move.unit(), reports.apply(move.from())
                    .flatMap(home -> home.unitLag(move.unit(), move.to())).map(figure::applyAsLong).orElse(unknown));
        }
        return lags;
    }

    /** What the failover policy would name that the topology or rules do not have; none without rules. */
    private static List<Problem> policyProblems(FailoverPolicy policy, Topology topology, UnitRules rules) {
        if (rules == null || policy.groups().isEmpty()) {
            return List.of();
        }
        java.util.Set<String> units = new java.util.HashSet<>();
        rules.units().forEach(u -> units.add(u.id()));
        return policy.problems(topology, units);
    }

    /** A request with its units (a drained region's) and its target and deadline worked out. */
    private record Resolved(List<String> units, String target, Instant deadline) {}

    private Resolved resolve(SwitchoverRequest request, ControlState current, List<Problem> problems) {
        List<String> units = new ArrayList<>(request.units());
        String drain = request.drain();
        String target = request.target();
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
        if (request.maxLagMs() < 0) {
            problems.add(new Problem("max_lag_ms", request.maxLagMs() + " (expected: >= 0)"));
        }
        Instant deadline = request.deadline() != null ? request.deadline()
                           : clock.instant().plus(request.timeout() != null ? request.timeout()
                                                                            : Duration.ofSeconds(60));
        return problems.isEmpty() ? new Resolved(units, target, deadline) : null;
    }

    ChangeResult abortSwitchover(String actor, String id, String reason) {
        return change(actor, "switchover.abort", id, reason, ANY, current -> {
            Switchover s = current.switchover();
            if (s == null || !s.id().equals(id)) {
                return Change.refused(Refusal.of(Refusal.Kind.NOT_FOUND, "switchover '" + id
                        + "': not the current one"));
            }
            if (!s.abortable()) {
                return Change.refused(Refusal.of(Refusal.Kind.CONFLICT, "switchover " + id + ": "
                        + s.phase().jsonName() + " (expected: fencing or catching_up to abort)"));
            }
            Switchover aborted = s.abort(clock.instant(), actor, reason);
            return Change.to(withEffects(current, aborted), aborted.outcome()).with(null, aborted);
        });
    }

    // ---- the leader's loop

    /** This instance no longer leads: when it leads again, the regions get TTL and grace to push to it. */
    void notLeading() {
        leadingSince = null;
    }

    /** Marks stale and expired health reports, then advances a running switchover by one phase. */
    void tick() {
        Instant now = clock.instant();
        if (leadingSince == null) {
            leadingSince = now;
        }
        Instant leading = leadingSince;
        PeerEvidence peers = evidence.updateAndGet(e -> e.pruned(now, healthTtl));
        change("control", "health.freshness", "health", "", ANY, current -> {
            Map<Region, HealthEntry> health = new LinkedHashMap<>(current.health());
            List<String> changed = new ArrayList<>();
            health.replaceAll((region, entry) -> {
                Optional<PeerEvidence.Unreachable> seen = peers.against(region, entry.receivedAt(), now, healthTtl);
                HealthEntry.Freshness f = HealthEntry.freshness(entry.receivedAt(), leading, now, healthTtl,
                                                                healthGrace, healthTtlWithEvidence, seen,
                                                                entry.freshness());
                if (f != entry.freshness()) {
                    boolean byPeers = f == HealthEntry.Freshness.EXPIRED && seen.isPresent()
                                      && HealthEntry.freshness(entry.receivedAt(), leading, now, healthTtl,
                                                               healthGrace, healthTtlWithEvidence,
                                                               Optional.empty(), entry.freshness())
                                         != HealthEntry.Freshness.EXPIRED;
                    if (byPeers) {
                        metrics.increment("unitas_control_regions_down_by_evidence_total",
                                "Regions taken down before the grace: stale, and unreachable from another",
                                "region", region.id());
                    }
                    changed.add(region + " " + f.jsonName() + " (last report received " + entry.receivedAt()
                                + (byPeers ? "; unreachable from " + seen.get().observer() + " since "
                                             + seen.get().receivedAt() + ", before the grace" : "") + ")");
                }
                return entry.withFreshness(f);
            });
            return changed.isEmpty() ? Change.none()
                                     : Change.to(current.withHealth(health), String.join("; ", changed));
        });
        change("control", "health.faults", "health", "", ANY, current -> {
            Map<Region, Instant> faults = faults(current, now, leading);
            if (faults.equals(current.faults())) {
                return Change.none();
            }
            List<String> changed = new ArrayList<>();
            faults.forEach((r, since) -> {
                if (!current.faults().containsKey(r)) {
                    changed.add(r + " cannot take writes since " + since);
                }
            });
            current.faults().keySet().stream().filter(r -> !faults.containsKey(r))
                   .forEach(r -> changed.add(r + " takes writes again"));
            return Change.to(current.withFaults(faults), String.join("; ", changed));
        });
        Switchover running = store.current().switchover();
        change("control", "switchover.step", running == null ? "switchover" : running.id(), "", ANY, current -> {
            Switchover s = current.switchover();
            if (s == null || s.phase().terminal()) {
                return Change.none();
            }
            // The moving units' lag as their homes ship it; a home whose report is not fresh says nothing.
            MovingLag lag = MovingLag.of(s.units(), s.origins(), s.target(),
                                         current.lagReports(true), now, healthTtl);
            Switchover next = s.advance(now, lag);
            if (next == s) {
                return Change.none();
            }
            return Change.to(withEffects(current, next), s.id() + " " + next.phase().jsonName() + ": "
                             + next.steps().get(next.steps().size() - 1).detail());
        });
        applyFailoverPolicy(now);
    }

    /**
     * Since when each region of the topology has been unable to take writes (unhealthy, read-only, or its report
     * expired or missing), keeping the first instant seen for a fault that lasts. A region whose report expired has
     * been unreachable since it was last heard from ({@link HealthEntry#heardFrom}: its last report, or when this
     * leader began to lead if later), not since the expiry noticed it: the policy's {@code promote_after} is time
     * without contact, as an operator counts it. Tracked only while a failover policy has groups: without one nothing
     * reads it, and the state's revision moves only for what matters.
     */
    private static Map<Region, Instant> faults(ControlState current, Instant now, Instant leadingSince) {
        Map<Region, Instant> faults = new LinkedHashMap<>();
        if (current.topology() == null || current.failover().groups().isEmpty()) {
            return faults;
        }
        io.unitas.core.HealthSnapshot snapshot = current.healthSnapshot();
        for (Region region : current.topology().regions()) {
            if (!snapshot.isHealthy(region) || !snapshot.get(region).writable()) {
                HealthEntry entry = current.health().get(region);
                Instant since = entry != null && entry.freshness() == HealthEntry.Freshness.EXPIRED
                        ? HealthEntry.heardFrom(entry.receivedAt(), leadingSince) : now;
                faults.put(region, current.faults().getOrDefault(region, since));
            }
        }
        return faults;
    }

    /**
     * The failover policy's moves due now: an automatic one starts (one switchover at a time, and for one group and
     * home no sooner than its after, at least {@link #LEAST_RETRY}, after the last attempt of the same kind: a
     * promotion after a switchover that rolled back starts at once); an ask one becomes a
     * pending proposal, and proposals no longer due are withdrawn.
     */
    private void applyFailoverPolicy(Instant now) {
        ControlState current = store.current();
        if (current.failover().groups().isEmpty() && current.proposals().isEmpty() || current.rules() == null) {
            return;
        }
        List<FailoverPolicy.Move> due = current.failover().due(current.topology(), current.healthSnapshot(),
                current.homes(), current.faults(), current.lagReports(true), healthTtl, now);
        for (FailoverPolicy.Move move : due) {
            if (move.mode() != FailoverPolicy.Mode.AUTOMATIC || current.switchoverRunning()) {
                continue;
            }
            FailoverPolicy.Group group = current.failover().groups().stream()
                    .filter(g -> g.name().equals(move.group())).findFirst().orElseThrow();
            String key = Proposal.idOf(move.group(), move.from());
            Duration retry = group.after().compareTo(LEAST_RETRY) < 0 ? LEAST_RETRY : group.after();
            Instant last = lastAttempt.get(key);
            // A switchover that could not drain gives way to a promotion as soon as promote_after allows: the
            // retry pause holds back repeating the same kind of move, not the step to the next.
            boolean escalates = move.promote() && !lastAttemptPromoted.getOrDefault(key, false);
            if (last != null && now.isBefore(last.plus(retry)) && !escalates) {
                continue;
            }
            lastAttempt.put(key, now);
            lastAttemptPromoted.put(key, move.promote());
            startSwitchover(POLICY_ACTOR, new SwitchoverRequest(move.units(), "", move.to().id(), 0, null,
                    group.timeout(), false, false, "group " + move.group() + ": " + move.why(), move.promote()));
            return; // one at a time
        }
        change(POLICY_ACTOR, "failover.propose", "proposals", "", ANY, state -> {
            List<Proposal> next = new ArrayList<>();
            for (FailoverPolicy.Move move : due) {
                boolean moving = state.switchoverRunning()
                                 && move.units().stream().anyMatch(state.switchover().units()::contains);
                if (move.mode() == FailoverPolicy.Mode.ASK && !moving) {
                    String id = Proposal.idOf(move.group(), move.from());
                    Proposal same = state.proposals().stream().filter(p -> p.id().equals(id)
                            && p.promote() == move.promote() && p.to().equals(move.to())
                            && p.units().equals(move.units())).findFirst().orElse(null);
                    next.add(same != null ? same : new Proposal(id, move.group(), move.from(), move.to(), move.units(),
                                                                move.promote(), move.why(), now));
                }
            }
            if (next.equals(state.proposals())) {
                return Change.none();
            }
            List<String> lines = new ArrayList<>();
            next.stream().filter(p -> !state.proposals().contains(p)).forEach(p -> lines.add("proposed " + p.id()
                    + ": " + (p.promote() ? "promote " : "move ") + String.join(", ", p.units()) + " to " + p.to()
                    + " (" + p.why() + "; accept with: unitas ctl accept " + p.id() + ")"));
            state.proposals().stream().filter(p -> !next.contains(p)).forEach(p -> lines.add("withdrawn "
                    + p.id()));
            return Change.to(state.withProposals(next), String.join("; ", lines));
        });
    }

    /** The state with {@code next} in place and the effects of the phase it entered: fence, flip or unfence. */
    private ControlState withEffects(ControlState current, Switchover next) {
        ControlState state = current.withSwitchover(next, current.switchoverCount());
        Map<String, FenceRecord> fences = new LinkedHashMap<>(current.fences());
        SwitchoverPhase phase = next.phase();
        Instant at = next.updatedAt();
        if (phase == SwitchoverPhase.CATCHING_UP) {
            // A fence an operator already holds stays theirs: lifting this switchover's fences must not lift it.
            Duration retryAfter = next.fenceRetryAfter(at, tickInterval);
            next.units().forEach(u -> fences.putIfAbsent(u, new FenceRecord(u, "switchover " + next.id() + " to "
                    + next.target(), at, next.id(), retryAfter)));
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
     * Computes and commits a change. With {@code ifRevision} other than {@link #ANY}, the change applies only to
     * that revision; without, a lost race re-reads and recomputes. A change with an empty detail is committed
     * without an audit line (routine health reports). Once a change has landed it is reported as applied even if
     * its audit line cannot be written: the failure is logged and counted, never turned into a refusal of a change
     * that happened.
     */
    private ChangeResult change(String actor, String action, String target, String reason, long ifRevision,
                                Function<ControlState, Change> compute) {
        for (int attempt = 0; attempt < RETRIES; attempt++) {
            ControlState current = store.current();
            if (ifRevision != ANY && current.revision() != ifRevision) {
                return stale(actor, action, target, reason, ifRevision, current.revision());
            }
            Change change = compute.apply(current);
            if (change.otherwise() != null) {
                if (change.otherwise() instanceof ChangeResult.Refused refused) {
                    refuse(actor, action, target, reason, refused.refusal());
                }
                return change.otherwise();
            }
            Instant now = clock.instant();
            long started = nanos.getAsLong();
            Optional<ControlState> landed = store.commit(change.next().at(current.revision() + 1, now));
            metrics.commitTook(nanos.getAsLong() - started);
            metrics.increment("unitas_control_commits_total", "commits by result: landed, or lost to a concurrent one",
                              "result", landed.isPresent() ? "landed" : "lost-race");
            if (landed.isPresent()) {
                long revision = landed.get().revision();
                if (!change.detail().isEmpty()) {
                    audit(new AuditEntry(0, now, actor, action, target, "ok", reason, revision, change.detail()));
                }
                return new ChangeResult.Applied(revision, change.plan(), change.switchover());
            }
            if (ifRevision != ANY) {
                return stale(actor, action, target, reason, ifRevision, store.current().revision());
            }
        }
        return new ChangeResult.Refused(refuse(actor, action, target, reason, Refusal.of(Refusal.Kind.CONFLICT,
                "lost " + RETRIES + " races to concurrent changes; try again")));
    }

    private ChangeResult stale(String actor, String action, String target, String reason, long expected,
                               long current) {
        ChangeResult.PreconditionFailed failed = new ChangeResult.PreconditionFailed(expected, current);
        refuse(actor, action, target, reason, failed.refusal());
        return failed;
    }

    /** Records a refusal in the audit log (as far as it can be written) and returns it. */
    Refusal refuse(String actor, String action, String target, String reason, Refusal refusal) {
        audit(new AuditEntry(0, clock.instant(), actor, action, target, refusal.kind().word(), reason, 0,
                             refusal.detail()));
        return refusal;
    }

    /** The audit lines that could not be written since start. */
    long auditFailures() {
        return auditFailures.sum();
    }

    private void audit(AuditEntry entry) {
        try {
            store.audit(entry.client().isEmpty() ? entry.withClient(client.get()) : entry);
            audited.increment();
        } catch (RuntimeException e) {
            auditFailures.increment();
            log.error("audit log: cannot write '{} {} {} {}' ({} failures so far)", entry.actor(), entry.action(),
                      entry.target(), entry.outcome(), auditFailures.sum(), e);
        }
    }

    /** A refusal for a document, with its problems by path and as the reader's {@code name:line:} lines. */
    private static Refusal invalid(String what, Documents.Read<?> read) {
        return Refusal.invalid(what, read.problems(), read.lines());
    }

    private static Refusal runningSwitchover(ControlState current) {
        return Refusal.of(Refusal.Kind.CONFLICT, "switchover " + current.switchover().id() + " is "
                + current.switchover().phase().jsonName() + " (expected: none running; one at a time)");
    }
}
