package io.unitas.data.merge;

import java.time.Instant;
import java.util.Objects;

/**
 * One entity holding concurrent writes its policy kept side by side, listed until resolved.
 *
 * @param type       the entity type
 * @param key        the entity's key
 * @param unit       its unit
 * @param versions   how many writes are kept side by side
 * @param detail     the state as its type prints it (the siblings' values and vectors), cut at 2,000 characters
 * @param detectedAt when this region first stored the entity in conflict
 */
public record OpenSiblings(String type, String key, String unit, int versions, String detail, Instant detectedAt) {

    /** Requires every part. */
    public OpenSiblings {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(detectedAt, "detectedAt");
    }
}
