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

import io.unitas.control.ChangeCommitter.Change;
import io.unitas.control.ControlService.SwitchoverRequest;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.switchover.FailoverPolicy;
import io.unitas.core.switchover.MovingLag;
import io.unitas.core.switchover.Switchover;

/**
 * The leader's periodic work, one {@link #tick()} at a time on one thread: ages health reports (stale, expired),
 * tracks since when each region cannot take writes, advances a running switchover by one phase, and applies the
 * failover policy (starts its automatic moves, keeps its proposals current).
 */
final class LeaderTick {

    /** Who the failover policy's own changes are recorded as. */
    static final String POLICY_ACTOR = "failover-policy";
    /** How often the leader's loop ticks unless told otherwise. */
    static final Duration DEFAULT_TICK = Duration.ofMillis(100);
    /** The least time between two automatic attempts for one group and home, when its after is shorter. */
    private static final Duration LEAST_RETRY = Duration.ofSeconds(5);

    private final ChangeCommitter committer;
    /** Starts the policy's moves, and puts a switchover's next phase in place with its effects. */
    private final ChangeCommands commands;
    private final HealthIntake intake;
    private final Clock clock;
    private final ControlMetrics metrics;
    private final Duration healthTtl;
    private final Duration healthGrace;
    private final Duration healthTtlWithEvidence;

    /** When the policy last started a move per proposal id ({@code group@home}); the leader's memory only. */
    private final Map<String, Instant> lastAttempt = new ConcurrentHashMap<>();
    /** Per group and home, whether the policy's last attempt was a promotion. */
    private final Map<String, Boolean> lastAttemptPromoted = new ConcurrentHashMap<>();
    /** Since when this instance leads (its first tick as leader); null while it does not. The tick thread's own. */
    private Instant leadingSince;

    LeaderTick(ChangeCommitter committer, ChangeCommands commands, HealthIntake intake, Clock clock,
               ControlMetrics metrics, Duration healthTtl, Duration healthGrace, Duration healthTtlWithEvidence) {
        this.committer = committer;
        this.commands = commands;
        this.intake = intake;
        this.clock = clock;
        this.metrics = metrics;
        this.healthTtl = healthTtl;
        this.healthGrace = healthGrace;
        this.healthTtlWithEvidence = healthTtlWithEvidence;
    }

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
        PeerEvidence peers = intake.evidence(now);
        committer.commit("control", "health.freshness", "health", "", ChangeCommitter.ANY, current -> {
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
        committer.commit("control", "health.faults", "health", "", ChangeCommitter.ANY, current -> {
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
        Switchover running = committer.current().switchover();
        committer.commit("control", "switchover.step", running == null ? "switchover" : running.id(), "",
                         ChangeCommitter.ANY, current -> {
            Switchover s = current.switchover();
            if (s == null || s.phase().terminal()) {
                return Change.none();
            }
            // The moving units' lag as their homes ship it, measured since the fence; a home whose report is not
            // fresh says nothing.
            MovingLag lag = MovingLag.of(s.units(), s.origins(), s.target(),
                                         current.lagReports(true), now, healthTtl, s.fencedAt());
            Switchover next = s.advance(now, lag);
            if (next == s) {
                return Change.none();
            }
            return Change.to(commands.withEffects(current, next), s.id() + " " + next.phase().jsonName() + ": "
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
        HealthSnapshot snapshot = current.healthSnapshot();
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
        ControlState current = committer.current();
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
            commands.startSwitchover(POLICY_ACTOR, SwitchoverRequest.policyMove(move.units(), move.to(),
                    group.timeout(), "group " + move.group() + ": " + move.why(), move.promote()));
            return; // one at a time
        }
        committer.commit(POLICY_ACTOR, "failover.propose", "proposals", "", ChangeCommitter.ANY, state -> {
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
}
