package io.unitas.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

import io.unitas.control.ChangeCommitter.Change;
import io.unitas.control.ControlService.Document;
import io.unitas.control.ControlService.SwitchoverRequest;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.consistency.ConsistencyCheck;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.fence.FenceRecord;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;
import io.unitas.core.rules.UnitRules;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverCooldown;
import io.unitas.core.switchover.SwitchoverPhase;
import io.unitas.core.switchover.SwitchoverPlan;

/**
 * The operators' changes: topology, rules and failover policy replaced, proposals accepted, fences added and lifted,
 * switchovers and promotions started and aborted. Each validates against the whole current state and computes the
 * next one; {@link ChangeCommitter} commits it.
 */
final class ChangeCommands {

    private final ChangeCommitter committer;
    private final Clock clock;
    private final SwitchoverCooldown cooldown;
    /** How often the leader's loop ticks: how long a promotion's fence tells writers to wait. */
    private final Duration tickInterval;
    /** The residency groups a switchover or promotion may not move a unit out of. */
    private final ConsistencyContract residency;

    ChangeCommands(ChangeCommitter committer, Clock clock, SwitchoverCooldown cooldown, Duration tickInterval,
                   ConsistencyContract residency) {
        this.committer = committer;
        this.clock = clock;
        this.cooldown = cooldown;
        this.tickInterval = tickInterval;
        this.residency = residency;
    }

    ChangeResult replaceTopology(String actor, long ifRevision, Document doc, String reason) {
        return committer.commit(actor, "topology.replace", "topology", reason, ifRevision, current -> {
            Documents.Read<Topology> topology = Documents.topology(doc.name(), doc.text());
            if (!topology.ok()) {
                return Change.refused(topology.refusal("topology"));
            }
            UnitRules rules = null;
            if (current.rules() != null) {
                Documents.Read<UnitRules> again = Documents.rules(current.rules(), topology.value());
                if (!again.ok()) {
                    return Change.refused(again.refusal("the current rules against this topology"));
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
        return committer.commit(actor, "rules.replace", "rules", reason, ifRevision, current -> {
            Documents.Read<UnitRules> rules = Documents.rules(doc.name(), doc.text(), current.topology());
            if (!rules.ok()) {
                return Change.refused(rules.refusal("rules"));
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
        return committer.commit(actor, "failover.replace", "failover", reason, ifRevision, current -> {
            Documents.Read<FailoverPolicy> policy = Documents.failover(doc.name(), doc.text(), current.topology(),
                                                                       current.rules());
            if (!policy.ok()) {
                return Change.refused(policy.refusal("failover policy"));
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
        ControlState current = committer.current();
        Proposal proposal = current.proposals().stream().filter(p -> p.id().equals(id)).findFirst().orElse(null);
        if (proposal == null) {
            return new ChangeResult.Refused(committer.refuse(actor, "proposal.accept", id, reason, Refusal.of(
                    Refusal.Kind.NOT_FOUND, "proposal '" + id + "': not pending")));
        }
        Duration timeout = current.failover().groups().stream().filter(g -> g.name().equals(proposal.group()))
                                  .map(FailoverPolicy.Group::timeout).findFirst().orElse(Duration.ofSeconds(60));
        ChangeResult started = startSwitchover(actor, SwitchoverRequest.policyMove(proposal.units(),
                proposal.to(), timeout, reason.isEmpty() ? "accepted proposal " + id + ": " + proposal.why() : reason,
                proposal.promote()));
        if (started instanceof ChangeResult.Applied) {
            committer.commit(actor, "proposal.accept", id, reason, ChangeCommitter.ANY, state -> {
                List<Proposal> left = new ArrayList<>(state.proposals());
                left.removeIf(p -> p.id().equals(id));
                return Change.to(state.withProposals(left), "accepted: " + String.join(", ", proposal.units())
                                                            + " -> " + proposal.to());
            });
        }
        return started;
    }

    /**
     * Fences writes of {@code units} (those fenced already keep their fence), refused writes told to come back after
     * {@code retryAfter}: about as long as the operator expects the fence to hold.
     */
    ChangeResult addFences(String actor, List<String> units, String reason, Duration retryAfter) {
        return committer.commit(actor, "fence.add", String.join(",", units), reason, ChangeCommitter.ANY,
                                current -> {
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
        return committer.commit(actor, "fence.lift", unit, reason, ChangeCommitter.ANY, current -> {
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
        Resolved resolved = resolve(request, committer.current(), problems);
        if (resolved == null) {
            return new ChangeResult.Refused(committer.refuse(actor, "switchover.start", "switchover",
                    request.reason(), Refusal.invalid("switchover request", problems)));
        }
        return committer.commit(actor, request.dryRun() ? "switchover.plan"
                                       : request.promote() ? "switchover.promote" : "switchover.start",
                                "units " + String.join(",", resolved.units) + " -> " + resolved.target,
                                request.reason(), ChangeCommitter.ANY, current -> {
            List<Problem> outside = residencyRefusals(current, resolved);
            if (!outside.isEmpty()) {
                return Change.refused(switchoverRefused(outside, null));
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
                return Change.refused(switchoverRefused(plan.refusals(), plan));
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

    ChangeResult abortSwitchover(String actor, String id, String reason) {
        return committer.commit(actor, "switchover.abort", id, reason, ChangeCommitter.ANY, current -> {
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

    /**
     * The state with {@code next} in place and the effects of the phase it entered: fence, flip or unfence. Shared
     * with the leader's tick, which advances a switchover through the same phases.
     */
    ControlState withEffects(ControlState current, Switchover next) {
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

    /** A switchover refused for {@code problems}, each in its detail; with the {@code plan} when one was made. */
    private static Refusal switchoverRefused(List<Problem> problems, SwitchoverPlan plan) {
        return new Refusal(Refusal.Kind.SWITCHOVER_REFUSED, problems.stream().map(Problem::toString)
                .reduce((a, b) -> a + "; " + b).orElse(""), problems, List.of(), plan);
    }

    /**
     * One figure of each moving unit's lag to the target as last known, however old its home's report (measured by
     * the home, or from its and the target's positions): what a promotion may lose (its RPO); {@code unknown} when
     * neither was ever reported.
     */
    private static Map<String, Long> lastKnownLags(ControlState current, SwitchoverPlan plan,
                                                   ToLongFunction<UnitLag> figure, long unknown) {
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
        Set<String> units = new HashSet<>();
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

    private static Refusal runningSwitchover(ControlState current) {
        return Refusal.of(Refusal.Kind.CONFLICT, "switchover " + current.switchover().id() + " is "
                + current.switchover().phase().jsonName() + " (expected: none running; one at a time)");
    }
}
