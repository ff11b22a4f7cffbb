package io.unitas.core.fence;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A unit's write fence as the control plane records it: who put it there (a switchover while the unit's data moves,
 * or an operator holding it still), why, since when, and what a write it refuses is told to wait: about as long as
 * the fence is expected to hold ({@link io.unitas.core.switchover.Switchover#fenceRetryAfter} for a switchover's,
 * {@link FencePolicy#DEFAULT_RETRY_AFTER} for an operator's). How the fence treats writes is its {@link FencePolicy}.
 *
 * @param unit        the fenced unit's id
 * @param reason      why, for the people who will see refused writes
 * @param since       when the fence was added
 * @param switchover  the id of the switchover that owns the fence, or {@code ""} for one added by hand
 * @param retryAfter  what a write the fence refuses is told to wait before trying again (at least a second)
 */
public record FenceRecord(String unit, String reason, Instant since, String switchover, Duration retryAfter) {

    /** Requires every part ({@code switchover} may be empty) and a retry-after of at least a second. */
    public FenceRecord {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(since, "since");
        Objects.requireNonNull(switchover, "switchover");
        Objects.requireNonNull(retryAfter, "retryAfter");
        if (retryAfter.compareTo(FencePolicy.MIN_RETRY_AFTER) < 0) {
            throw new IllegalArgumentException("retry_after: " + retryAfter + " (expected: >= 1s)");
        }
    }

    /** A fence telling refused writes {@link FencePolicy#DEFAULT_RETRY_AFTER}. */
    public FenceRecord(String unit, String reason, Instant since, String switchover) {
        this(unit, reason, since, switchover, FencePolicy.DEFAULT_RETRY_AFTER);
    }

    /** Whether a switchover (rather than an operator) owns this fence. */
    public boolean ownedBySwitchover() {
        return !switchover.isEmpty();
    }
}
