package io.unitas.data.outbox;

import java.util.Objects;

/**
 * What applying one change did, with the applied position of its (origin, unit) afterwards.
 *
 * @param outcome  what happened
 * @param change   the change offered
 * @param position the last sequence of the change's (origin, unit) applied here, after this call; -1 when the
 *                 database could not tell
 * @param reason   one line saying why it was not applied; empty when applied or a duplicate
 */
public record ApplyResult(Outcome outcome, ChangeEnvelope change, long position, String reason) {

    /** What happened to a change offered to an applier. */
    public enum Outcome {
        /** Applied now, with the position moved to it in the same transaction. */
        APPLIED,
        /** Already applied before (at-least-once delivery repeated it): nothing done. */
        DUPLICATE,
        /** Ahead of the next expected sequence (a change before it is missing): nothing done, the stream holds. */
        GAP,
        /** The database or the service's handler rejected it: the unit's stream stops here until it applies. */
        REJECTED,
        /** The database is read-only or unreachable: nothing done, try again later. */
        UNAVAILABLE
    }

    /** Requires every part. */
    public ApplyResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(change, "change");
        Objects.requireNonNull(reason, "reason");
    }

    /** Whether the change is now applied here (just now or before), so a transport may drop it. */
    public boolean consumed() {
        return outcome == Outcome.APPLIED || outcome == Outcome.DUPLICATE;
    }

    /** Whether the unit's stream must stop at this change until an operator or a fix lets it apply. */
    public boolean stopsStream() {
        return outcome == Outcome.REJECTED || outcome == Outcome.GAP;
    }
}
