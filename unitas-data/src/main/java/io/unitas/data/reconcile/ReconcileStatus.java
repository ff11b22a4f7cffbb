package io.unitas.data.reconcile;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What operators must know of reconciliation, for a region's health report: conflicts kept aside and not yet
 * resolved, and reconciliation that keeps failing. Degraded information, never a reason to take the region down:
 * the new home's data stands and is served; what waits is a person's decision.
 *
 * @param openByKind the conflicts open, by entity kind ({@code ACCOUNT}), kinds with none left out
 * @param failures   the reconciliations that failed so far (a store unreadable; retried)
 * @param reason     one line naming what waits, empty when nothing does
 */
public record ReconcileStatus(Map<String, Long> openByKind, long failures, String reason) {

    /** Copies the map in kind order; requires a reason. */
    public ReconcileStatus {
        openByKind = Collections.unmodifiableMap(new TreeMap<>(openByKind));
        Objects.requireNonNull(reason, "reason");
    }

    /** Every conflict resolved and the last reconciliation did not fail. */
    public boolean clear() {
        return reason.isEmpty();
    }

    /** The conflicts open, all kinds. */
    public long open() {
        return openByKind.values().stream().mapToLong(Long::longValue).sum();
    }
}
