package io.unitas.data.reconcile;

import java.time.Instant;
import java.util.Objects;

/**
 * What undoes an operation done twice (one Idempotency-Key, an order on each side of a promotion): a refund of the
 * duplicate, the one the key's record in the new home does not name.
 *
 * @param duplicateId the entity undone (an order id)
 * @param keptId      the one that stands
 * @param key         the operation's key (the Idempotency-Key)
 * @param owner       whom it belongs to (a user id)
 * @param reason      why
 * @param at          when
 */
public record Compensation(String duplicateId, String keptId, String key, String owner, String reason, Instant at) {

    /** Requires every part. */
    public Compensation {
        Objects.requireNonNull(duplicateId, "duplicateId");
        Objects.requireNonNull(keptId, "keptId");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(at, "at");
    }
}
