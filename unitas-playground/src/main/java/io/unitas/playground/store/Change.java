package io.unitas.playground.store;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Objects;

/**
 * One write to a regional store, as its change log keeps it for replication. {@code originReplica} and
 * {@code seq} identify it (a target applies each at most once, in order); {@code writtenAt} makes lag measurable.
 *
 * @param origin        the region whose store took the write
 * @param originReplica that store's {@link RegionalStore#replicaId()}: a region whose data is rebuilt starts a new log
 * @param seq           its position in that log, from 1, without gaps
 * @param kind          what was written
 * @param key           the written entity's key (user id, session token, Idempotency-Key, order id)
 * @param payload       the entity as encoded by the store; empty for a deletion
 * @param writtenAt     when the origin store took the write, by its clock
 */
public record Change(Region origin, String originReplica, long seq, Kind kind, String key, String payload,
                     Instant writtenAt) {

    /** What a change writes. */
    public enum Kind {
        /** An account, keyed by user id. */
        ACCOUNT,
        /** A session, keyed by token. */
        SESSION,
        /** An idempotency record, keyed by Idempotency-Key; an empty payload deletes it. */
        IDEMPOTENCY,
        /** An order, keyed by order id. */
        ORDER,
        /** A whole cart state, keyed by user id; applying it merges. */
        CART,
        /** A compensation (refund) of a duplicate order, keyed by the order id it undoes. */
        COMPENSATION
    }

    /** Requires every part and a positive sequence. */
    public Change {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(originReplica, "originReplica");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(writtenAt, "writtenAt");
        if (seq < 1) {
            throw new IllegalArgumentException("seq: " + seq + " (expected: >= 1)");
        }
    }

    /** {@code <originReplica>#<seq>}, how messages name the change. */
    public String id() {
        return originReplica + "#" + seq;
    }
}
