package io.unitas.core.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import io.unitas.core.Region;

/**
 * What one region's own database says about its copies of units' merged data: per unit, the entities whose policy
 * could not merge concurrent writes (open siblings, listed until resolved on record), and what the unit's last
 * reconciliation pass against its home found and left (drift). The health agent reads it beside the positions
 * ({@code unitas-schema: true}); the control plane shows it per region and unit in its console.
 *
 * @param known  whether the region reads it at all; {@link #NONE} does not
 * @param readAt when it was read, by the reporting region's clock
 * @param units  per unit with open siblings or a reconciliation pass on record; a unit absent has neither
 */
public record UnitReconciliation(boolean known, Instant readAt, Map<String, Unit> units) {

    /** Nothing read. */
    public static final UnitReconciliation NONE = new UnitReconciliation(false, Instant.EPOCH, Map.of());

    /** Freezes the map, keeping its order. */
    public UnitReconciliation {
        Objects.requireNonNull(readAt, "readAt");
        units = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(units, "units")));
    }

    /** What was read at {@code readAt}. */
    public static UnitReconciliation of(Instant readAt, Map<String, Unit> units) {
        return new UnitReconciliation(true, readAt, units);
    }

    /**
     * One unit's conflicts and drift in the reporting region.
     *
     * @param openSiblings  entities of the unit in conflict now (0 when none)
     * @param oldestSibling when the oldest of them was first detected; empty when none
     * @param pass          the unit's last reconciliation pass here; empty when its copy was never reconciled here
     *                      (the region is its home, or no reconciler runs)
     */
    public record Unit(int openSiblings, Optional<Instant> oldestSibling, Optional<Pass> pass) {

        /** Requires a count >= 0, and a time exactly when there are siblings. */
        public Unit {
            Objects.requireNonNull(oldestSibling, "oldestSibling");
            Objects.requireNonNull(pass, "pass");
            if (openSiblings < 0) {
                throw new IllegalArgumentException("open_siblings: " + openSiblings + " (expected: >= 0)");
            }
            if (oldestSibling.isPresent() != openSiblings > 0) {
                throw new IllegalArgumentException("oldest_sibling_at: " + oldestSibling.map(Instant::toString)
                        .orElse("missing") + " with " + openSiblings + " open siblings (expected: given exactly "
                        + "when some are open)");
            }
        }
    }

    /**
     * What a unit's last reconciliation pass found and did.
     *
     * @param home            the home region whose copy this region's was compared with
     * @param at              when the pass ran
     * @param window          how often the unit is reconciled
     * @param rangesDiffering key ranges whose digests differed from the home's
     * @param rangesPending   ranges still differing after the pass (this region's writes on their way home)
     * @param keysRepaired    keys the pass changed here (adopted, replaced, merged or deleted)
     * @param failure         why the pass stopped early (a copy unreadable); empty when it ran through
     */
    public record Pass(Region home, Instant at, Duration window, int rangesDiffering, int rangesPending,
                       int keysRepaired, Optional<String> failure) {

        /** Requires every part, a positive window and counts >= 0. */
        public Pass {
            Objects.requireNonNull(home, "home");
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(window, "window");
            Objects.requireNonNull(failure, "failure");
            if (window.isZero() || window.isNegative()) {
                throw new IllegalArgumentException("window_ms: " + window.toMillis() + " (expected: > 0)");
            }
            if (rangesDiffering < 0 || rangesPending < 0 || keysRepaired < 0) {
                throw new IllegalArgumentException("ranges_differing: " + rangesDiffering + ", ranges_pending: "
                                                   + rangesPending + ", keys_repaired: " + keysRepaired
                                                   + " (expected: each >= 0)");
            }
        }

        /** Whether the unit has not been reconciled for three windows at {@code now}: its loop has stalled. */
        public boolean stalled(Instant now) {
            return now.isAfter(at.plus(window.multipliedBy(3)));
        }
    }
}
