package io.unitas.data.merge;

import io.unitas.core.Region;
import io.unitas.core.reconcile.RepairAction;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What one reconciliation pass of a unit found and did.
 *
 * @param unit            the unit
 * @param home            its home region, whose copy this region's was compared with
 * @param at              when the pass ran
 * @param rangesCompared  ranges compared (ranges per type times declared types)
 * @param rangesDiffering ranges whose digests differed
 * @param keys            keys found different, by what was done with them (never {@code NONE})
 * @param rangesPending   ranges still differing after the pass: this region holds writes on their way home
 *                        ({@code KEEP}, {@code MERGE})
 * @param failure         why the pass stopped early (a copy unreadable); empty when it ran through
 */
public record DigestReport(String unit, Region home, Instant at, int rangesCompared, int rangesDiffering,
                           Map<RepairAction, Integer> keys, int rangesPending, Optional<String> failure) {

    /** Requires every part and copies the counts. */
    public DigestReport {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(at, "at");
        keys = Map.copyOf(keys);
        Objects.requireNonNull(failure, "failure");
    }

    /** Keys this pass changed here: adopted, replaced, merged or deleted. */
    public int repaired() {
        return keys.entrySet().stream().filter(e -> e.getKey().changesHere()).mapToInt(Map.Entry::getValue).sum();
    }

    /** How many keys were found with {@code action}. */
    public int count(RepairAction action) {
        return keys.getOrDefault(action, 0);
    }
}
