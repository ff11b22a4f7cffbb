package io.unitas.data.reconcile;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counts of reconciliation in one process, its latest conflicts and those still open: what a drill, a metric or
 * a health reason shows. Thread-safe.
 *
 * <p>Meters: {@code unitas.data.reconcile.conflicts.open{kind}} (Prometheus
 * {@code unitas_data_reconcile_conflicts_open}), {@code unitas.data.reconcile.conflicts{kind}} (every one kept aside),
 * {@code unitas.data.reconcile.duplicates.detected}, {@code unitas.data.reconcile.duplicates.compensated},
 * {@code unitas.data.reconcile.failures{kind}}. Each conflict is logged (WARN) with its unit and key, each
 * resolution (INFO), each distinct failure (WARN).
 */
public final class Reconciliations {

    private static final Logger LOG = LoggerFactory.getLogger(Reconciliations.class);

    /** How many of the latest conflicts are kept in memory (every one is counted). */
    public static final int KEPT_CONFLICTS = 100;

    /**
     * A snapshot of the counts.
     *
     * @param crossed            changes found unshipped when their unit moved (every outcome below)
     * @param adopted            of those, written in the new home as they were (it had nothing else)
     * @param merged             merged with the new home's version
     * @param conflicts          kept aside as conflicts
     * @param duplicatesDetected operations found done on both sides
     * @param compensated        of those, compensated
     * @param conflictList       the latest conflicts, oldest first
     */
    public record Report(long crossed, long adopted, long merged, long conflicts, long duplicatesDetected,
                         long compensated, List<Conflict> conflictList) {

        /** Freezes the list. */
        public Report {
            conflictList = List.copyOf(conflictList);
        }

        /** Duplicates detected and not compensated: must be 0. */
        public long uncompensated() {
            return duplicatesDetected - compensated;
        }
    }

    private final MeterRegistry registry;
    private final AtomicLong crossed = new AtomicLong();
    private final AtomicLong adopted = new AtomicLong();
    private final AtomicLong merged = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong compensated = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final Counter duplicatesMeter;
    private final Counter compensatedMeter;
    private final Deque<Conflict> latest = new ArrayDeque<>(); // guarded by itself
    /** The conflicts not yet resolved, by change id, in the order found. */
    private final Map<String, Conflict> open = new LinkedHashMap<>(); // guarded by itself
    /** Per kind, the conflicts open: what the gauge reads. */
    private final Map<String, AtomicLong> openByKind = new HashMap<>(); // guarded by open
    /** The last failure not yet followed by a decided change; empty when none. */
    private volatile String lastFailure = "";

    /** Counts without meters (a drill's, a test's). */
    public Reconciliations() {
        this(new SimpleMeterRegistry());
    }

    /** Counts, and exports them as meters in {@code registry}. */
    public Reconciliations(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.duplicatesMeter = Counter.builder("unitas.data.reconcile.duplicates.detected")
                .description("operations found done on both sides of a promotion (one Idempotency-Key, two orders)")
                .register(registry);
        this.compensatedMeter = Counter.builder("unitas.data.reconcile.duplicates.compensated")
                .description("duplicates undone by their compensation (a refund), stored in the new home")
                .register(registry);
    }

    /** Counts one decided change by its outcome; a duplicate counts as detected (see {@link #compensated}). */
    public void decided(Outcome<?> outcome) {
        crossed.incrementAndGet();
        lastFailure = "";
        // A diverged change is counted by conflict(), with its record.
        if (outcome instanceof Outcome.Adopt<?>) {
            adopted.incrementAndGet();
        } else if (outcome instanceof Outcome.Merge<?>) {
            merged.incrementAndGet();
        } else if (outcome instanceof Outcome.Duplicate<?>) {
            duplicates.incrementAndGet();
            duplicatesMeter.increment();
        }
    }

    /** Records a conflict kept aside, open until {@link #resolved}; logs it with its unit and key. */
    public void conflict(Conflict conflict) {
        conflicts.incrementAndGet();
        Counter.builder("unitas.data.reconcile.conflicts").tag("kind", conflict.kind())
                .description("changes kept aside as conflicts: the old home's version differs and no merge exists")
                .register(registry).increment();
        synchronized (latest) {
            latest.addLast(conflict);
            if (latest.size() > KEPT_CONFLICTS) {
                latest.removeFirst();
            }
        }
        markOpen(conflict);
        LOG.warn("reconciliation conflict: {}", conflict.describe());
    }

    /**
     * Marks conflicts held in a store as open without counting them found again (a process starting on a store that
     * kept them): the metric and health reason then show what still waits.
     */
    public void reopen(Collection<Conflict> held) {
        held.forEach(this::markOpen);
    }

    /**
     * Marks the conflict of change {@code changeId} settled (by a person or the service's own process): it leaves the
     * open count and the health reason. Returns false when no such conflict is open.
     */
    public boolean resolved(String changeId) {
        Conflict done;
        synchronized (open) {
            done = open.remove(Objects.requireNonNull(changeId, "changeId"));
            if (done != null) {
                openByKind.get(done.kind()).decrementAndGet();
            }
        }
        if (done != null) {
            LOG.info("reconciliation conflict resolved: unit {} {} {} (change {})", done.unit(), done.kind(),
                     done.key(), done.changeId());
        }
        return done != null;
    }

    /**
     * Counts a change that could not be reconciled now (the new home's store unreadable, …): it waits and is decided
     * again later. Logged once per distinct reason in a row.
     */
    public void failed(String unit, String kind, String changeId, String reason) {
        failures.incrementAndGet();
        Counter.builder("unitas.data.reconcile.failures").tag("kind", kind)
                .description("changes that crossed a move and could not be reconciled yet (retried)")
                .register(registry).increment();
        String line = "unit " + unit + " " + kind + " change " + changeId + ": " + reason;
        if (!line.equals(lastFailure)) {
            LOG.warn("reconciliation failed, retried later: {}", line);
        }
        lastFailure = line;
    }

    /** Counts a duplicate compensated (stored with its compensation). */
    public void compensated(Compensation compensation) {
        compensated.incrementAndGet();
        compensatedMeter.increment();
    }

    /** The counts now. */
    public Report report() {
        List<Conflict> list;
        synchronized (latest) {
            list = List.copyOf(latest);
        }
        return new Report(crossed.get(), adopted.get(), merged.get(), conflicts.get(), duplicates.get(),
                          compensated.get(), list);
    }

    /** The conflicts open now, oldest first. */
    public List<Conflict> open() {
        synchronized (open) {
            return List.copyOf(open.values());
        }
    }

    /** What operators must see now: open conflicts by kind and a failing reconciliation, as one reason. */
    public ReconcileStatus status() {
        Map<String, Long> byKind = new TreeMap<>();
        Conflict oldest;
        synchronized (open) {
            openByKind.forEach((kind, n) -> {
                if (n.get() > 0) {
                    byKind.put(kind, n.get());
                }
            });
            oldest = open.isEmpty() ? null : open.values().iterator().next();
        }
        StringBuilder reason = new StringBuilder();
        if (oldest != null) {
            long total = byKind.values().stream().mapToLong(Long::longValue).sum();
            reason.append(total).append(total == 1 ? " reconciliation conflict" : " reconciliation conflicts")
                  .append(" open ").append(byKind).append(", oldest: ").append(oldest.describe());
        }
        String failing = lastFailure;
        if (!failing.isEmpty()) {
            reason.append(reason.length() == 0 ? "" : "; ").append("reconciliation failing: ").append(failing);
        }
        return new ReconcileStatus(byKind, failures.get(), reason.toString());
    }

    private void markOpen(Conflict conflict) {
        synchronized (open) {
            if (open.putIfAbsent(conflict.changeId(), conflict) == null) {
                AtomicLong n = openByKind.get(conflict.kind());
                if (n == null) {
                    AtomicLong created = new AtomicLong();
                    openByKind.put(conflict.kind(), created);
                    Gauge.builder("unitas.data.reconcile.conflicts.open", created, AtomicLong::get)
                            .tag("kind", conflict.kind())
                            .description("conflicts kept aside by reconciliation and not yet resolved")
                            .register(registry);
                    n = created;
                }
                n.incrementAndGet();
            }
        }
    }
}
