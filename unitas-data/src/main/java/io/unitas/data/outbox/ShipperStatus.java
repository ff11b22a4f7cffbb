package io.unitas.data.outbox;

import java.time.Instant;
import java.util.Objects;

/**
 * Whether an outbox's shipping is doing its work, for health reports: its rounds run and succeed, and no unit's
 * stream is stopped.
 *
 * @param healthy   rounds succeed, the last is recent, and no stream is stopped
 * @param reason    one line saying what is wrong; empty when healthy
 * @param lastRound when the last successful round ended ({@link Instant#EPOCH} before the first)
 * @param rounds    successful rounds so far
 * @param failures  failed rounds so far
 */
public record ShipperStatus(boolean healthy, String reason, Instant lastRound, long rounds, long failures) {

    /** Requires a reason and a time. */
    public ShipperStatus {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(lastRound, "lastRound");
    }
}
