package io.unitas.data.reconcile;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Objects;

/**
 * A change its old home acknowledged but did not ship before its unit moved, that differs from what the new home
 * holds and has no merge: kept aside, listed and counted, for a person or a service's own process to settle.
 *
 * @param changeId   the change ({@code <origin replica>#<seq>})
 * @param unit       its unit
 * @param kind       what it writes ({@code ACCOUNT})
 * @param key        the entity's key
 * @param origin     the old home that wrote it
 * @param home       the new home that holds another version
 * @param detail     what differs
 * @param detectedAt when it was found
 */
public record Conflict(String changeId, String unit, String kind, String key, Region origin, Region home,
                       String detail, Instant detectedAt) {

    /** Requires every part. */
    public Conflict {
        Objects.requireNonNull(changeId, "changeId");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(detectedAt, "detectedAt");
    }

    /** One line for logs and health reasons, naming the unit, the key and both homes. */
    public String describe() {
        return "unit " + unit + " " + kind + " " + key + ": change " + changeId + " of " + origin
               + " kept aside, " + home + "'s version stands (" + detail + ")";
    }
}
