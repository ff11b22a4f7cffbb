package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.core.crdt.Cart;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.replication.ReplicationLag;
import io.unitas.data.store.Account;
import io.unitas.data.store.Session;
import io.unitas.data.store.StoreDirectory;
import java.time.Duration;
import java.util.Objects;

/**
 * The check a service makes after routing: is this user's data here? Reads the serving region's store first; on a
 * miss in a region that is not the user's home, reads the home region (回源); when the home cannot be read, answers
 * {@code NOT_READY} (retryable 503 {@code data-not-ready}) — never "not found" for data only the home can vouch
 * for. A session that cannot be found anywhere readable may be rebuilt, at a rate-limited pace, so a failover's
 * wave of rebuilds does not crush the target region. With {@link Builder#freshness}, a local copy older than a lag
 * bound is passed over for the home's.
 */
public interface DataReadiness {

    /** A builder; {@link Builder#stores} is required. */
    static Builder builder() {
        return new Builder();
    }

    /** The account of {@code userId}, whose unit's home is {@code home}, for a request served in {@code serving}. */
    ReadinessResult<Account> account(Region serving, Region home, String userId);

    /**
     * The session {@code token} of a user whose home is {@code home}, for a request served in {@code serving}; may
     * answer {@code REBUILD} when the home cannot be read and the rebuild rate limit admits one more.
     */
    ReadinessResult<Session> session(Region serving, Region home, String token);

    /**
     * The cart of {@code userId}, whose home is {@code home}, for a request served in {@code serving}: merged with the
     * home's cart when the home can be read ({@code HOME}), else the serving region's own ({@code LOCAL}). Carts stay
     * available while the home is down because they merge later without losing an item; {@code NOT_READY} only
     * when neither store can be read.
     */
    ReadinessResult<Cart> cart(Region serving, Region home, String userId);

    /** Collects the settings of a {@link DataReadiness}. */
    final class Builder {
        private StoreDirectory stores;
        private TokenBucket sessionRebuilds;
        private Duration retryAfter = Duration.ofSeconds(1);
        private ReplicationLag lag = (from, to) -> 0;
        private long maxLagMillis = Long.MAX_VALUE;

        private Builder() {}

        /** How to reach each region's store, the serving one and the homes. */
        public Builder stores(StoreDirectory stores) {
            this.stores = Objects.requireNonNull(stores, "stores");
            return this;
        }

        /** The rate limit on session rebuilds in the serving region (default: 50 at once, then 20 a second). */
        public Builder sessionRebuilds(TokenBucket sessionRebuilds) {
            this.sessionRebuilds = Objects.requireNonNull(sessionRebuilds, "sessionRebuilds");
            return this;
        }

        /** The wait suggested with {@code data-not-ready} when the home cannot be read (default: 1 s). */
        public Builder retryAfter(Duration retryAfter) {
            this.retryAfter = DataProblem.requireSuggestedWait(retryAfter);
            return this;
        }

        /**
         * Serves local data only while the home's replication to the serving region lags at most {@code maxLag};
         * beyond it, reads the home when it can be read (a logout or change there may not have arrived). Without
         * this bound, any local copy is served.
         */
        public Builder freshness(ReplicationLag lag, Duration maxLag) {
            if (maxLag.isNegative()) {
                throw new IllegalArgumentException("max_lag: " + maxLag + " (expected: >= 0)");
            }
            this.lag = Objects.requireNonNull(lag, "lag");
            this.maxLagMillis = maxLag.toMillis();
            return this;
        }

        /** Builds it. */
        public DataReadiness build() {
            if (stores == null) {
                throw new IllegalStateException("stores: not set (expected: a StoreDirectory)");
            }
            TokenBucket rebuilds = sessionRebuilds != null ? sessionRebuilds
                                                           : TokenBucket.of(20, 50, System::nanoTime);
            return new HomeFallbackReadiness(stores, rebuilds, retryAfter, lag, maxLagMillis);
        }
    }
}
