package io.unitas.core.fence;

import java.time.Instant;
import java.util.Objects;

/**
 * A unit's write fence as the control plane records it: who put it there (a switchover while the unit's data moves,
 * or an operator holding it still), why, and since when. How the fence treats writes is its {@link FencePolicy}.
 *
 * @param unit        the fenced unit's id
 * @param reason      why, for the people who will see refused writes
 * @param since       when the fence was added
 * @param switchover  the id of the switchover that owns the fence, or {@code ""} for one added by hand
 */
public record FenceRecord(String unit, String reason, Instant since, String switchover) {

    /** Requires every part ({@code switchover} may be empty). */
    public FenceRecord {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(switchover, "switchover");
    }

    /** Whether a switchover (rather than an operator) owns this fence. */
    public boolean ownedBySwitchover() {
        return !switchover.isEmpty();
    }
}
