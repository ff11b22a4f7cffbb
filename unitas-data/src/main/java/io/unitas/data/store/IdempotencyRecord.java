package io.unitas.data.store;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * What a store remembers about one Idempotency-Key: whose request, a hash of its payload, the claim that holds it,
 * and its response once the request completed ({@code null} while it is in flight).
 *
 * @param key         the Idempotency-Key
 * @param userId      the user who sent it
 * @param payloadHash a hash of the request payload, to tell a retry from a reuse of the key
 * @param response    the stored response, or {@code null} while the request is in flight
 * @param createdAt   when the key was first claimed
 * @param expiresAt   when the record stops counting (its TTL)
 * @param claimToken  a random id the claimant chose for this claim attempt ({@link #newClaimToken()}), so that the
 *                    same claim sent again after its answer was lost is granted again; empty when none was given
 */
public record IdempotencyRecord(String key, String userId, String payloadHash, StoredResponse response,
                                Instant createdAt, Instant expiresAt, String claimToken) {

    /** The longest claim token a store keeps. */
    public static final int MAX_CLAIM_TOKEN = 64;

    /** Requires every part but the response; a claim token of at most {@link #MAX_CLAIM_TOKEN} characters. */
    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(payloadHash, "payloadHash");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(claimToken, "claimToken");
        if (claimToken.length() > MAX_CLAIM_TOKEN) {
            throw new IllegalArgumentException("claimToken: " + claimToken.length() + " characters (expected: at most "
                                               + MAX_CLAIM_TOKEN + ")");
        }
    }

    /** A record without a claim token: a claim of it is never granted twice. */
    public IdempotencyRecord(String key, String userId, String payloadHash, StoredResponse response,
                             Instant createdAt, Instant expiresAt) {
        this(key, userId, payloadHash, response, createdAt, expiresAt, "");
    }

    /** A record for a request that has started and not finished, without a claim token. */
    public static IdempotencyRecord inFlight(String key, String userId, String payloadHash, Instant now,
                                             Instant expiresAt) {
        return new IdempotencyRecord(key, userId, payloadHash, null, now, expiresAt, "");
    }

    /** A record for a request that has started and not finished, claimed under {@code claimToken}. */
    public static IdempotencyRecord inFlight(String key, String userId, String payloadHash, Instant now,
                                             Instant expiresAt, String claimToken) {
        return new IdempotencyRecord(key, userId, payloadHash, null, now, expiresAt, claimToken);
    }

    /** A new random claim token, one per claim attempt. */
    public static String newClaimToken() {
        return UUID.randomUUID().toString();
    }

    /** Whether the request is still running (no response yet). */
    public boolean inFlight() {
        return response == null;
    }

    /** Whether the record has outlived its TTL at {@code now}. */
    public boolean isExpiredAt(Instant now) {
        return !now.isBefore(expiresAt);
    }

    /**
     * Whether this stored record is held by {@code claim} itself, sent again: still in flight, under the same
     * non-empty claim token, for the same owner and fingerprint. A store grants such a claim again instead of
     * answering it as another request in flight.
     */
    public boolean heldBy(IdempotencyRecord claim) {
        return inFlight() && !claimToken.isEmpty() && claimToken.equals(claim.claimToken())
               && key.equals(claim.key()) && userId.equals(claim.userId()) && payloadHash.equals(claim.payloadHash());
    }

    /** This record completed with {@code response}. */
    public IdempotencyRecord completed(StoredResponse response) {
        return new IdempotencyRecord(key, userId, payloadHash, Objects.requireNonNull(response, "response"),
                                     createdAt, expiresAt, claimToken);
    }
}
