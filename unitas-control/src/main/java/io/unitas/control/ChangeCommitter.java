package io.unitas.control;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.unitas.core.switchover.Switchover;
import io.unitas.core.switchover.SwitchoverPlan;

/**
 * The one way a change reaches the state: computed from the current state, committed as the next revision
 * (compare-and-set, retried for changes that do not name a revision), and recorded, or its refusal, in the audit log.
 * Operators' commands, the agents' health reports and the leader's tick all commit here.
 */
final class ChangeCommitter {

    private static final Logger log = LoggerFactory.getLogger(ChangeCommitter.class);

    /** Retries of a commit that lost a race to another change, for changes without If-Match. */
    private static final int RETRIES = 20;

    /** The revision a change that does not name one applies to: whichever is current. */
    static final long ANY = -1;

    private final StateStore store;
    private final Clock clock;
    /** The control plane's own meters, served at {@code /metrics}. */
    private final ControlMetrics metrics;
    /** Nanoseconds for the commit latency; a test's own ticker makes it exact. */
    private final LongSupplier nanos;
    /** The address of the client whose request is being served, for the audit; empty outside a request. */
    private final Supplier<String> client;
    private final LongAdder audited = new LongAdder();
    private final LongAdder auditFailures = new LongAdder();

    ChangeCommitter(StateStore store, Clock clock, ControlMetrics metrics, LongSupplier nanos,
                    Supplier<String> client) {
        this.store = store;
        this.clock = clock;
        this.metrics = metrics;
        this.nanos = nanos;
        this.client = client;
        metrics.count("unitas_control_audit_entries_total", "audit entries written (changes and refusals)",
                      audited::sum);
        metrics.count("unitas_control_audit_failures_total", "audit entries that could not be written",
                      auditFailures::sum);
    }

    /** A change computed from the current state: the next state and what changed, or a result without one. */
    record Change(ControlState next, String detail, SwitchoverPlan plan, Switchover switchover,
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

    /** The newest state this replica knows. */
    ControlState current() {
        return store.current();
    }

    /**
     * Computes and commits a change. With {@code ifRevision} other than {@link #ANY}, the change applies only to
     * that revision; without, a lost race re-reads and recomputes. A change with an empty detail is committed
     * without an audit line (routine health reports). Once a change has landed it is reported as applied even if
     * its audit line cannot be written: the failure is logged and counted, never turned into a refusal of a change
     * that happened.
     */
    ChangeResult commit(String actor, String action, String target, String reason, long ifRevision,
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
}
