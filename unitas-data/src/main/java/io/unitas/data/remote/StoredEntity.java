package io.unitas.data.remote;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One entity as the home region's store holds it: the bytes the service encoded, the version that orders its
 * writes, and when the home acknowledged that version. The payload is the service's own encoding; unitas carries it
 * and never reads it.
 *
 * @param version        the entity's version in the home store, {@code >= 0}; higher is newer
 * @param payload        the service's encoding of the entity, shared, not copied: do not change it
 * @param acknowledgedAt when the home acknowledged this version to its writer
 */
public record StoredEntity(long version, byte[] payload, Instant acknowledgedAt) {

    /** Requires every part and a version {@code >= 0}. */
    public StoredEntity {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(acknowledgedAt, "acknowledgedAt");
        if (version < 0) {
            throw new IllegalArgumentException("version: " + version + " (expected: >= 0)");
        }
    }

    /** Equal when the version, the acknowledgement and the payload's bytes are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof StoredEntity e && version == e.version && acknowledgedAt.equals(e.acknowledgedAt)
               && Arrays.equals(payload, e.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, acknowledgedAt) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "StoredEntity{version=" + version + ", " + payload.length + " bytes, acknowledgedAt=" + acknowledgedAt
               + "}";
    }
}
