package io.unitas.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.unitas.core.Region;
import io.unitas.core.consistency.ConsistencyContract;
import io.unitas.core.health.UnitReconciliation;
import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverCooldown;

/**
 * Every operation on the control-plane state, the one owner of its transitions. Typed commands in, {@link
 * ChangeResult}s and state out: no HTTP, JSON or header here; {@link ControlApi} translates. The work is in three
 * parts, all committing through one {@link ChangeCommitter} (compare-and-set of the next revision, and its audit
 * entry): {@link ChangeCommands}, the operators' changes; {@link HealthIntake}, what the regions' agents report; and
 * {@link LeaderTick}, the leader's periodic health expiry, switchover steps and failover policy.
 */
final class ControlService {

    /** The revision a change that does not name one applies to: whichever is current. */
    static final long ANY = ChangeCommitter.ANY;
    /** Who the failover policy's own changes are recorded as. */
    static final String POLICY_ACTOR = LeaderTick.POLICY_ACTOR;
    /** How often the leader's loop ticks unless told otherwise. */
    static final Duration DEFAULT_TICK = LeaderTick.DEFAULT_TICK;

    private final StateStore store;
    /** The control plane's own meters, served at {@code /metrics}. */
    private final ControlMetrics metrics;
    private final ChangeCommitter committer;
    private final ChangeCommands commands;
    private final HealthIntake intake;
    private final LeaderTick leaderTick;

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

    /** Every unit's conflicts and drift in every region's latest report. */
    private static Stream<UnitReconciliation.Unit> units(StateStore store) {
        return store.current().health().values().stream()
                    .flatMap(h -> h.reconciliation().units().values().stream());
    }

    /**
     * As above, counting into {@code metrics}, timing commits with {@code nanos}, and recording in each audit entry
     * the address {@code client} names for the request being served (empty when none is: the leader's own changes).
     */
    ControlService(StateStore store, Clock clock, Duration healthTtl, Duration healthGrace,
                   Duration healthTtlWithEvidence, SwitchoverCooldown cooldown, Duration healthClockSkew,
                   Duration tick, ConsistencyContract residency, ControlMetrics metrics, LongSupplier nanos,
                   Supplier<String> client) {
        this.store = store;
        this.metrics = metrics;
        metrics.gauge("unitas_control_leader", "1 while this replica leads (runs switchovers and health expiry)",
                      () -> store.leader() ? 1 : 0);
        metrics.gauge("unitas_control_revision", "the newest revision of the state this replica knows",
                      () -> store.current().revision());
        metrics.gauge("unitas_control_open_siblings", "entities in conflict (open siblings) in every region's latest "
                      + "health report", () -> units(store).mapToInt(UnitReconciliation.Unit::openSiblings).sum());
        metrics.gauge("unitas_control_reconcile_ranges_pending", "key ranges still differing from the home's after "
                      + "each unit's last reconciliation pass, in every region's latest health report",
                      () -> units(store).flatMap(u -> u.pass().stream())
                                        .mapToInt(UnitReconciliation.Pass::rangesPending).sum());
        metrics.gauge("unitas_control_reconcile_failing_units", "units whose last reconciliation pass failed, or "
                      + "that were not reconciled for three windows, in every region's latest health report",
                      () -> store.current().health().values().stream().mapToLong(h -> h.reconciliation().units()
                              .values().stream().flatMap(u -> u.pass().stream())
                              .filter(p -> p.failure().isPresent() || p.stalled(h.reconciliation().readAt()))
                              .count()).sum());
        this.committer = new ChangeCommitter(store, clock, metrics, nanos, client);
        this.commands = new ChangeCommands(committer, clock, cooldown, tick, residency);
        this.intake = new HealthIntake(committer, clock, metrics, healthClockSkew, healthTtl);
        this.leaderTick = new LeaderTick(committer, commands, intake, clock, metrics, healthTtl, healthGrace,
                                         healthTtlWithEvidence);
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

        /** A move of the failover policy (its own, or an accepted proposal), within its group's {@code timeout}. */
        static SwitchoverRequest policyMove(List<String> units, Region to, Duration timeout, String reason,
                                            boolean promote) {
            return new SwitchoverRequest(units, "", to.id(), 0, null, timeout, false, false, reason, promote);
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

    /** The audit lines that could not be written since start. */
    long auditFailures() {
        return committer.auditFailures();
    }

    // ---- the operators' changes: ChangeCommands

    ChangeResult replaceTopology(String actor, long ifRevision, Document doc, String reason) {
        return commands.replaceTopology(actor, ifRevision, doc, reason);
    }

    ChangeResult replaceRules(String actor, long ifRevision, Document doc, String reason) {
        return commands.replaceRules(actor, ifRevision, doc, reason);
    }

    ChangeResult replaceFailover(String actor, long ifRevision, Document doc, String reason) {
        return commands.replaceFailover(actor, ifRevision, doc, reason);
    }

    /** {@link ChangeCommands#acceptProposal}. */
    ChangeResult acceptProposal(String actor, String id, String reason) {
        return commands.acceptProposal(actor, id, reason);
    }

    /** {@link ChangeCommands#addFences}. */
    ChangeResult addFences(String actor, List<String> units, String reason, Duration retryAfter) {
        return commands.addFences(actor, units, reason, retryAfter);
    }

    ChangeResult liftFence(String actor, String unit, String reason) {
        return commands.liftFence(actor, unit, reason);
    }

    ChangeResult startSwitchover(String actor, SwitchoverRequest request) {
        return commands.startSwitchover(actor, request);
    }

    ChangeResult abortSwitchover(String actor, String id, String reason) {
        return commands.abortSwitchover(actor, id, reason);
    }

    /** Records a refusal in the audit log (as far as it can be written) and returns it. */
    Refusal refuse(String actor, String action, String target, String reason, Refusal refusal) {
        return committer.refuse(actor, action, target, reason, refusal);
    }

    // ---- what the regions' agents report: HealthIntake

    ChangeResult reportHealth(String actor, String regionId, Document doc) {
        return intake.reportHealth(actor, regionId, doc);
    }

    /** {@link HealthIntake#resetHealth}. */
    ChangeResult resetHealth(String actor, String regionId, String reason) {
        return intake.resetHealth(actor, regionId, reason);
    }

    /** {@link HealthIntake#reportUnreachable}. */
    Evidence reportUnreachable(String actor, String regionId, String observerId) {
        return intake.reportUnreachable(actor, regionId, observerId);
    }

    // ---- the leader's loop: LeaderTick

    /** {@link LeaderTick#notLeading}. */
    void notLeading() {
        leaderTick.notLeading();
    }

    /** {@link LeaderTick#tick}. */
    void tick() {
        leaderTick.tick();
    }
}
