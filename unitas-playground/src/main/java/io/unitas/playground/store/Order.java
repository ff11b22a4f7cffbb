package io.unitas.playground.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A placed order.
 *
 * @param orderId        the order's id
 * @param userId         who placed it
 * @param idempotencyKey the Idempotency-Key it was placed under, or {@code ""} for none
 * @param payload        what was ordered, as the service encodes it
 * @param createdAt      when it was placed
 */
public record Order(String orderId, String userId, String idempotencyKey, String payload, Instant createdAt) {

    /** Requires every part. */
    public Order {
        Objects.requireNonNull(orderId, "orderId");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(idempotencyKey, "idempotencyKey");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
