package io.unitas.data.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What a store remembers about one Idempotency-Key: whose request, a hash of its payload, and its response once
 * the request completed ({@code null} while it is in flight).
 *
 * @param key         the Idempotency-Key
 * @param userId      the user who sent it
 * @param payloadHash a hash of the request payload, to tell a retry from a reuse of the key
 * @param response    the stored response, or {@code null} while the request is in flight
 * @param createdAt   when the key was first claimed
 * @param expiresAt   when the record stops counting (its TTL)
 */
public record IdempotencyRecord(String key, String userId, String payloadHash, StoredResponse response,
                                Instant createdAt, Instant expiresAt) {

    /** Requires every part but the response. */
    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(payloadHash, "payloadHash");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** A record for a request that has started and not finished. */
    public static IdempotencyRecord inFlight(String key, String userId, String payloadHash, Instant now,
                                             Instant expiresAt) {
        return new IdempotencyRecord(key, userId, payloadHash, null, now, expiresAt);
    }

    /** Whether the request is still running (no response yet). */
    public boolean inFlight() {
        return response == null;
    }

    /** Whether the record has outlived its TTL at {@code now}. */
    public boolean isExpiredAt(Instant now) {
        return !now.isBefore(expiresAt);
    }

    /** This record completed with {@code response}. */
    public IdempotencyRecord completed(StoredResponse response) {
        return new IdempotencyRecord(key, userId, payloadHash, Objects.requireNonNull(response, "response"),
                                     createdAt, expiresAt);
    }
}
