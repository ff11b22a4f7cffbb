package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.data.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Idempotency-Key handling for any operation, with the record kept in the {@link IdempotencyStore} of the owner's
 * home unit whatever region executes, so a retry that lands in another region after a failover finds the first
 * attempt and one key never has two effects. Follows the IETF Idempotency-Key draft: a replay returns the stored
 * response, the same key with a different request fingerprint is 422 {@code idempotency-key-reused}, and a
 * duplicate while the first is still running is 409 {@code idempotency-key-in-flight}. Records expire after a TTL,
 * by the injected clock.
 *
 * <p>A new key needs a writable home store; while the home is read-only or unreachable the answer is 503
 * {@code data-not-ready}. Replays of completed keys are still served from the home, or from this region's copy of
 * the record when the home cannot be read (where the service replicates its records).
 */
public interface Idempotency {

    /**
     * A builder; {@link Builder#region}, {@link Builder#homes} and the stores ({@link Builder#stores} or
     * {@link Builder#unitStores}) are required.
     */
    static Builder builder() {
        return new Builder();
    }

    /** The lowercase hex SHA-256 of {@code payload} as UTF-8: a request fingerprint for {@link #execute}. */
    static String payloadHash(String payload) {
        return fingerprint(payload);
    }

    /**
     * The lowercase hex SHA-256 of {@code parts}, each as UTF-8 and length-prefixed so no two lists collide: a
     * request fingerprint from what makes two requests the same (method, path, body).
     */
    static String fingerprint(String... parts) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            if (parts.length == 1) {
                return HexFormat.of().formatHex(sha.digest(parts[0].getBytes(StandardCharsets.UTF_8)));
            }
            for (String part : parts) {
                byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
                sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                sha.update(bytes);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256: unavailable (every Java platform must have it)", e);
        }
    }

    /**
     * Runs {@code action} at most once per {@code key}: records the key in the store of {@code owner}'s home unit,
     * runs the action, stores its response and returns it; answers a retry with the stored response. If the action
     * throws, the key is released and the exception propagates.
     *
     * @param key         the request's Idempotency-Key
     * @param owner       whose request it is: the key of the unit rules (a user id) whose home keeps the record
     * @param fingerprint what makes two requests the same ({@link #fingerprint}, {@link #payloadHash})
     * @param action      the request's effect, returning the response to store
     */
    IdempotencyResult execute(String key, String owner, String fingerprint, Supplier<StoredResponse> action);

    /**
     * As {@link #execute(String, String, String, Supplier)}, with the record kept for {@code ttl} instead of the
     * builder's {@link Builder#ttl} (an endpoint whose retries may come later, or must stop sooner).
     */
    IdempotencyResult execute(String key, String owner, String fingerprint, Duration ttl,
                              Supplier<StoredResponse> action);

    /** Collects the settings of an {@link Idempotency}. */
    final class Builder {
        private Region region;
        private HomeResolver homes;
        private BiFunction<Region, String, Optional<IdempotencyStore>> stores;
        private Clock clock = Clock.systemUTC();
        private Duration ttl = Duration.ofHours(24);
        private Duration retryAfter = Duration.ofSeconds(1);

        private Builder() {}

        /** The region this service instance serves in; its store may hold copies of other homes' records. */
        public Builder region(Region region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /** What home is for an owner. */
        public Builder homes(HomeResolver homes) {
            this.homes = Objects.requireNonNull(homes, "homes");
            return this;
        }

        /** Each region's store, by region: empty for a region this process cannot reach. */
        public Builder stores(Function<Region, Optional<IdempotencyStore>> stores) {
            Objects.requireNonNull(stores, "stores");
            this.stores = (region, unit) -> stores.apply(region);
            return this;
        }

        /**
         * Each home's store of one unit's records, by region and unit id: empty for a region this process cannot
         * reach. A store over the network is scoped to the unit so that the home can refuse a unit it does not own
         * ({@code HomeReadClient.idempotency(home, unit)}); this region's own store serves every unit.
         */
        public Builder unitStores(BiFunction<Region, String, Optional<IdempotencyStore>> stores) {
            this.stores = Objects.requireNonNull(stores, "stores");
            return this;
        }

        /** Each region's store, in this process. */
        public Builder stores(Map<Region, ? extends IdempotencyStore> stores) {
            Map<Region, IdempotencyStore> copy = Map.copyOf(new LinkedHashMap<>(stores));
            return stores(r -> Optional.ofNullable(copy.get(r)));
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

        /** Builds it; {@link #region}, {@link #homes} and one of the {@code stores} settings are required. */
        public Idempotency build() {
            if (region == null || homes == null || stores == null) {
                throw new IllegalStateException("region, homes, stores: " + region + ", " + homes + ", " + stores
                                                + " (expected: all set)");
            }
            return new HomeUnitIdempotency(region, homes, stores, clock, ttl, retryAfter);
        }
    }
}
