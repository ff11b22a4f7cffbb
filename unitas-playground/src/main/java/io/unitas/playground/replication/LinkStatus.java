package io.unitas.playground.replication;

import io.unitas.core.Region;
import java.time.Duration;

/**
 * One replication link as last measured: changes written in {@code from} and applied in {@code to}.
 *
 * @param from                 the origin region
 * @param to                   the target region
 * @param paused               whether shipping is paused (the replication-backlog fault)
 * @param delay                the injected delay: a change ships no earlier than this after it was written
 * @param appliedSeq           the last sequence of {@code from}'s log applied in {@code to}
 * @param pendingChanges       changes written in {@code from} and not yet applied in {@code to}, as far as the last
 *                             round read them (one batch at most; 1 when it shipped a full batch, which may not
 *                             have been all)
 * @param lagMillis            how far {@code to} is behind: the age of the oldest pending change, 0 when caught
 *                             up; it keeps growing while the link is paused or an end is unavailable
 * @param lastApplyDelayMillis how long the last applied change took from write to apply, -1 before the first
 * @param problem              why the last round could not read an end or apply a change, empty when it could
 */
public record LinkStatus(Region from, Region to, boolean paused, Duration delay, long appliedSeq,
                         long pendingChanges, long lagMillis, long lastApplyDelayMillis, String problem) {

    /** Whether {@code to} has applied everything {@code from} wrote, as far as the last measurement knows. */
    public boolean caughtUp() {
        return pendingChanges == 0;
    }
}
