package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * The check a service makes after routing, for one kind of entity: is this key's data here? Reads the serving
 * region's store first; on a miss in a region that is not the key's home, reads the home region (回源); when the
 * home cannot be read in time, answers {@code NOT_READY} (retryable 503 {@code data-not-ready}) — never "not found"
 * for data only the home can vouch for. The service supplies the reads; the library decides.
 *
 * <pre>{@code
 * DataReadiness<String, Account> accounts = DataReadiness.<String, Account>builder()
 *         .region(serving)
 *         .homes(HomeResolver.rules(() -> rules, KeySource.header("x-user-id")))
 *         .local(id -> localDb.account(id))
 *         .homeAsync((home, id) -> remote.account(home, id))
 *         .build();
 * }</pre>
 *
 * @param <K> the key type
 * @param <V> the entity type
 */
public interface DataReadiness<K, V> {

    /** A builder; {@link Builder#region}, {@link Builder#homes} and {@link Builder#local} are required. */
    static <K, V> Builder<K, V> builder() {
        return new Builder<>();
    }

    /** The region this instance serves in: its reads are the local ones. */
    Region region();

    /** The entity of {@code key}, waiting at most the home timeout for the home region. */
    ReadinessResult<V> read(K key);

    /** The entity of {@code key}, completing when the home region answers or its timeout passes; never fails. */
    CompletionStage<ReadinessResult<V>> readAsync(K key);

    /** Collects the settings of a {@link DataReadiness}. */
    final class Builder<K, V> {
        Region region;
        Function<? super K, String> unitKey;
        Function<? super K, StoreResult<V>> local;
        BiFunction<Region, ? super K, ? extends CompletionStage<StoreResult<V>>> home =
                (region, key) -> CompletableFuture.completedFuture(
                        StoreResult.unavailable(region, "no way to read the home region is configured"));
        Duration homeTimeout = Duration.ofSeconds(2);
        HomeResolver resolver;
        Function<? super K, String> describe = key -> "entity '" + key + "'";
        BiFunction<? super K, ? super V, Instant> asOf;
        Duration maxAge;
        Clock clock = Clock.systemUTC();
        BinaryOperator<V> merge;
        TokenBucket rebuilds;
        Duration retryAfter = Duration.ofSeconds(1);

        private Builder() {}

        /** The region this instance serves in. */
        public Builder<K, V> region(Region region) {
            this.region = Objects.requireNonNull(region, "region");
            return this;
        }

        /** What home is for a key, looked up by the key's string form (a user id, an account number). */
        public Builder<K, V> homes(HomeResolver homes) {
            return homes(homes, String::valueOf);
        }

        /**
         * What home is for a key, looked up by {@code unitKey} of it: the owner whose unit holds the entity (the
         * user of a session token, the account of a transfer).
         */
        public Builder<K, V> homes(HomeResolver homes, Function<? super K, String> unitKey) {
            Objects.requireNonNull(homes, "homes");
            Objects.requireNonNull(unitKey, "unitKey");
            this.resolver = homes;
            this.unitKey = unitKey;
            return this;
        }

        /** How to read an entity in the serving region's own store. */
        public Builder<K, V> local(Function<? super K, StoreResult<V>> read) {
            this.local = Objects.requireNonNull(read, "local");
            return this;
        }

        /** How to read an entity from its home region, when that is a call that answers at once. */
        public Builder<K, V> home(BiFunction<Region, ? super K, StoreResult<V>> read) {
            Objects.requireNonNull(read, "home");
            this.home = (region, key) -> CompletableFuture.completedFuture(read.apply(region, key));
            return this;
        }

        /** How to read an entity from its home region over the network: a stage that completes with the answer. */
        public Builder<K, V> homeAsync(BiFunction<Region, ? super K, ? extends CompletionStage<StoreResult<V>>> read) {
            this.home = Objects.requireNonNull(read, "homeAsync");
            return this;
        }

        /** How long a home read may take before the home counts as unreadable (default: 2 s). */
        public Builder<K, V> homeTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("home_timeout: " + timeout + " (expected: > 0)");
            }
            this.homeTimeout = timeout;
            return this;
        }

        /** How details name an entity ({@code "account of user alice"}); default {@code entity 'key'}. */
        public Builder<K, V> describe(Function<? super K, String> describe) {
            this.describe = Objects.requireNonNull(describe, "describe");
            return this;
        }

        /**
         * How fresh a local copy must be: {@code asOf} says up to when a copy is known current (the time its region
         * had applied the home's changes through, or the copy's own write time), and a copy older than
         * {@code maxAge} by the {@link #clock} is passed over for the home's. When the home cannot be read, the old
         * copy is still served: stale beats unavailable for a read. Without this, any local copy is served.
         */
        public Builder<K, V> freshness(BiFunction<? super K, ? super V, Instant> asOf, Duration maxAge) {
            if (maxAge.isNegative()) {
                throw new IllegalArgumentException("max_age: " + maxAge + " (expected: >= 0)");
            }
            this.asOf = Objects.requireNonNull(asOf, "asOf");
            this.maxAge = maxAge;
            return this;
        }

        /** The clock that ages local copies for {@link #freshness}. */
        public Builder<K, V> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * For entities that merge without loss (CRDTs: carts, counters): read both the serving region and the home,
         * and answer their merge ({@code HOME}); the serving region's own copy alone ({@code LOCAL}) while the home
         * cannot be read. Such entities stay available through a home's outage.
         */
        public Builder<K, V> merge(BinaryOperator<V> merge) {
            this.merge = Objects.requireNonNull(merge, "merge");
            return this;
        }

        /**
         * For entities the serving region may recreate (sessions after a failover): when neither the serving region
         * nor the home can vouch for one, answer {@code REBUILD} while {@code rebuilds} admits one, so a failover's
         * wave of rebuilds arrives at the bucket's pace; {@code NOT_READY} with the bucket's wait beyond it.
         */
        public Builder<K, V> rebuilds(TokenBucket rebuilds) {
            this.rebuilds = Objects.requireNonNull(rebuilds, "rebuilds");
            return this;
        }

        /** The wait suggested with {@code data-not-ready} when the home cannot be read (default: 1 s). */
        public Builder<K, V> retryAfter(Duration retryAfter) {
            this.retryAfter = DataProblem.requireSuggestedWait(retryAfter);
            return this;
        }

        /** Builds it. */
        public DataReadiness<K, V> build() {
            if (region == null || resolver == null || local == null) {
                throw new IllegalStateException("region, homes, local: " + region + ", " + resolver + ", " + local
                                                + " (expected: all set)");
            }
            if (merge != null && rebuilds != null) {
                throw new IllegalStateException("merge and rebuilds: both set (expected: one; a merged entity is"
                                                + " never missing for want of its home)");
            }
            return new HomeFallbackReadiness<>(this);
        }
    }
}
