package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Objects;

/**
 * A unit's stream from one region that stopped in another because a change could not be applied: nothing of that
 * unit moves past it there until it applies (retried every round), while other units keep flowing.
 *
 * @param origin   where the unit's changes come from
 * @param target   where they stopped
 * @param unit     the unit
 * @param position the last sequence applied at {@code target}
 * @param refused  the sequence of the change refused ({@code position + 1}, or a later one that came early)
 * @param reason   why, as the database or the service's handler said it
 * @param since    when it first stopped at this position
 */
public record StoppedStream(Region origin, Region target, String unit, long position, long refused,
                            String reason, Instant since) {

    /** Requires every part. */
    public StoppedStream {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(since, "since");
    }

    /** One line for logs and health reasons, naming the unit, the regions and the position. */
    public String describe() {
        return "unit " + unit + " from " + origin + " stopped in " + target + " at position " + position
               + " (change " + origin + "/" + unit + "#" + refused + " refused): " + reason;
    }
}
