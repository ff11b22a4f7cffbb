package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.data.store.StoreDirectory;
import io.unitas.data.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Idempotency-Key handling with the record kept in the store of the user's home unit, so a retry that lands in
 * another region after a failover finds the first attempt and one key never makes two orders. Follows the IETF
 * Idempotency-Key draft: a replay returns the stored response, the same key with a different payload is 422
 * {@code idempotency-key-reused}, and a duplicate while the first is still running is 409
 * {@code idempotency-key-in-flight}. Records expire after a TTL, by the injected clock.
 *
 * <p>A new key needs a writable home store; while the home is read-only or unreachable the answer is 503
 * {@code data-not-ready}. Replays of completed keys are still served from the home, or from this region's
 * replica of the record when the home cannot be read.
 */
public interface Idempotency {

    /** A builder; {@link Builder#region} and {@link Builder#stores} are required. */
    static Builder builder() {
        return new Builder();
    }

    /** The lowercase hex SHA-256 of {@code payload} as UTF-8: a payload hash for {@link #execute}. */
    static String payloadHash(String payload) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(payload.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256: unavailable (every Java platform must have it)", e);
        }
    }

    /**
     * Runs {@code action} at most once per {@code key}: records the key with the home unit of {@code userId}, whose
     * home region is {@code home}, runs the action, stores its response and returns it; answers a retry with the
     * stored response. If the action throws, the key is released and the exception propagates.
     *
     * @param key         the request's Idempotency-Key
     * @param userId      the user sending it
     * @param home        the home region of the user's unit
     * @param payloadHash a hash of the request payload ({@link #payloadHash})
     * @param action      the request's effect, returning the response to store
     */
    IdempotencyResult execute(String key, String userId, Region home, String payloadHash,
                              Supplier<StoredResponse> action);

    /** Collects the settings of an {@link Idempotency}. */
    final class Builder {
        private Region region;
        private StoreDirectory stores;
        private Clock clock = Clock.systemUTC();
        private Duration ttl = Duration.ofHours(24);
        private Duration retryAfter = Duration.ofSeconds(1);

        private Builder() {}

        /** The region this service instance serves in; its store holds replicas of other homes' records. */
        public Builder region(Region region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /** How to reach each region's store. */
        public Builder stores(StoreDirectory stores) {
            this.stores = Objects.requireNonNull(stores, "stores");
            return this;
        }

        /** The clock that stamps records and expires them. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How long a record counts (default: 24 h); after it the key may be used again. */
        public Builder ttl(Duration ttl) {
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl: " + ttl + " (expected: > 0)");
            }
            this.ttl = ttl;
            return this;
        }

        /** The wait suggested with 409 and 503 answers (default: 1 s). */
        public Builder retryAfter(Duration retryAfter) {
            this.retryAfter = DataProblem.requireSuggestedWait(retryAfter);
            return this;
        }

        /** Builds it. */
        public Idempotency build() {
            if (region == null || stores == null) {
                throw new IllegalStateException("region, stores: " + region + ", " + stores
                                                + " (expected: both set)");
            }
            return new HomeUnitIdempotency(region, stores, clock, ttl, retryAfter);
        }
    }
}
