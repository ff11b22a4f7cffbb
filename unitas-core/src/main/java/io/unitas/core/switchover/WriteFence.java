package io.unitas.core.switchover;

import java.time.Instant;
import java.util.Objects;

/**
 * Writes of {@code unit} are refused (reads go on) while its data moves or an operator holds it still.
 *
 * @param unit        the fenced unit's id
 * @param reason      why, for the people who will see refused writes
 * @param since       when the fence was added
 * @param switchover  the id of the switchover that owns the fence, or {@code ""} for one added by hand
 */
public record WriteFence(String unit, String reason, Instant since, String switchover) {

    /** Requires every part ({@code switchover} may be empty). */
    public WriteFence {
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
