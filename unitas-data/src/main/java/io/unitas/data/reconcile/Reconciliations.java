package io.unitas.data.reconcile;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counts of reconciliation in one process, and its latest conflicts: what a drill, a metric or a health reason
 * shows. Thread-safe.
 */
public final class Reconciliations {

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

    private final AtomicLong crossed = new AtomicLong();
    private final AtomicLong adopted = new AtomicLong();
    private final AtomicLong merged = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong compensated = new AtomicLong();
    private final Deque<Conflict> latest = new ArrayDeque<>(); // guarded by itself

    /** Counts one decided change by its outcome; a duplicate counts as detected (see {@link #compensated}). */
    public void decided(Outcome<?> outcome) {
        crossed.incrementAndGet();
        // A diverged change is counted by conflict(), with its record.
        if (outcome instanceof Outcome.Adopt<?>) {
            adopted.incrementAndGet();
        } else if (outcome instanceof Outcome.Merge<?>) {
            merged.incrementAndGet();
        } else if (outcome instanceof Outcome.Duplicate<?>) {
            duplicates.incrementAndGet();
        }
    }

    /** Records a conflict kept aside. */
    public void conflict(Conflict conflict) {
        conflicts.incrementAndGet();
        synchronized (latest) {
            latest.addLast(conflict);
            if (latest.size() > KEPT_CONFLICTS) {
                latest.removeFirst();
            }
        }
    }

    /** Counts a duplicate compensated (stored with its compensation). */
    public void compensated(Compensation compensation) {
        compensated.incrementAndGet();
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
}
