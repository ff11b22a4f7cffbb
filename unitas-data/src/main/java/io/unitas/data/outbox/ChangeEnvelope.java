package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One change a service wrote, as it travels between regions: which unit's data, written where, its place in that
 * unit's stream from that region, and the service's own encoding of the entity. The (origin, unit, sequence) triple
 * names a change; a transport delivering it twice delivers the same change. A change names the one before it in its
 * unit's stream ({@code previous}), so a receiver applies it only right after that one: a change missing in between
 * holds the stream instead of being skipped.
 *
 * @param unit       the unit whose data changed (a Kafka transport's partition key)
 * @param origin     the region whose outbox recorded it
 * @param sequence   its position in {@code origin}'s outbox: increasing along the unit's stream, not contiguous
 *                   (positions are shared by all units of the region)
 * @param previous   the sequence of the unit's change before it, 0 for the first; as read from an outbox, before the
 *                   shipper chains it, 0
 * @param entityType the service's name for the kind of entity ({@code ledger_entry}), choosing how it is applied
 * @param key        the entity's key
 * @param payload    the entity as the service encodes it; unitas never reads it
 * @param writtenAt  when the origin wrote it, by the origin's clock (the start of its lag)
 */
public record ChangeEnvelope(String unit, Region origin, long sequence, long previous, String entityType, String key,
                             byte[] payload, Instant writtenAt) {

    /** Requires every part, a sequence from 1 after its previous, and copies the payload. */
    public ChangeEnvelope {
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(entityType, "entityType");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(writtenAt, "writtenAt");
        if (sequence < 1) {
            throw new IllegalArgumentException("sequence: " + sequence + " (expected: >= 1)");
        }
        if (previous < 0 || previous >= sequence) {
            throw new IllegalArgumentException("previous: " + previous + " (expected: 0 <= previous < sequence "
                                               + sequence + ")");
        }
        payload = Objects.requireNonNull(payload, "payload").clone();
    }

    /** A change of a contiguous stream, whose previous is {@code sequence - 1}. */
    public ChangeEnvelope(String unit, Region origin, long sequence, String entityType, String key, byte[] payload,
                          Instant writtenAt) {
        this(unit, origin, sequence, sequence - 1, entityType, key, payload, writtenAt);
    }

    /** This change, following {@code previous} in its unit's stream. */
    public ChangeEnvelope withPrevious(long previous) {
        return new ChangeEnvelope(unit, origin, sequence, previous, entityType, key, payload, writtenAt);
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** {@code origin/unit#sequence}, how logs and problems name a change. */
    public String id() {
        return origin + "/" + unit + "#" + sequence;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangeEnvelope c && unit.equals(c.unit) && origin.equals(c.origin)
               && sequence == c.sequence && previous == c.previous && entityType.equals(c.entityType) && key.equals(c.key)
               && Arrays.equals(payload, c.payload) && writtenAt.equals(c.writtenAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(unit, origin, sequence, previous, entityType, key, Arrays.hashCode(payload), writtenAt);
    }

    @Override
    public String toString() {
        return "ChangeEnvelope{" + id() + ", " + entityType + " " + key + ", " + payload.length + " bytes, "
               + writtenAt + '}';
    }
}
