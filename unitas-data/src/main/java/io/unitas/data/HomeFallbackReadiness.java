package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.core.crdt.Cart;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.replication.ReplicationLag;
import io.unitas.data.store.Account;
import io.unitas.data.store.RegionalStore;
import io.unitas.data.store.Session;
import io.unitas.data.store.StoreDirectory;
import io.unitas.data.store.StoreResult;
import java.time.Duration;
import java.util.function.Function;

/** {@link DataReadiness}: local store, then the home store, then not-ready or a rate-limited rebuild. */
final class HomeFallbackReadiness implements DataReadiness {

    private final StoreDirectory stores;
    private final TokenBucket sessionRebuilds;
    private final Duration retryAfter;
    private final ReplicationLag lag;
    private final long maxLagMillis;

    HomeFallbackReadiness(StoreDirectory stores, TokenBucket sessionRebuilds, Duration retryAfter,
                          ReplicationLag lag, long maxLagMillis) {
        this.stores = stores;
        this.sessionRebuilds = sessionRebuilds;
        this.retryAfter = retryAfter;
        this.lag = lag;
        this.maxLagMillis = maxLagMillis;
    }

    @Override
    public ReadinessResult<Account> account(Region serving, Region home, String userId) {
        return resolve(serving, home, "account of user " + userId, s -> s.account(userId), false);
    }

    @Override
    public ReadinessResult<Session> session(Region serving, Region home, String token) {
        return resolve(serving, home, "session", s -> s.session(token), true);
    }

    @Override
    public ReadinessResult<Cart> cart(Region serving, Region home, String userId) {
        String what = "cart of user " + userId;
        StoreResult<Cart> local = read(serving, s -> s.cart(userId));
        StoreResult<Cart> atHome = serving.equals(home) ? local : read(home, s -> s.cart(userId));
        if (atHome.isOk() && !serving.equals(home)) {
            Cart merged = local.isOk() ? local.value().merge(atHome.value()) : atHome.value();
            return new ReadinessResult<>(ReadinessResult.Outcome.HOME, merged, null,
                                         what + " in " + serving + " merged with home region " + home + "'s");
        }
        if (local.isOk()) {
            return new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, local.value(), null,
                                         serving.equals(home) ? what + " read in " + serving
                                                              : what + " read in " + serving + "; home region " + home
                                                                + " cannot be read (" + atHome.detail() + ")");
        }
        return notReady(what + " cannot be read in " + serving + " (" + local.detail() + ") nor in home region "
                        + home, retryAfter);
    }

    private <T> ReadinessResult<T> resolve(Region serving, Region home, String what,
                                           Function<RegionalStore, StoreResult<T>> read, boolean rebuildable) {
        StoreResult<T> local = read(serving, read);
        if (local.isOk()) {
            return serving.equals(home) ? new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, local.value(), null,
                                                                what + " read in " + serving)
                                        : freshest(serving, home, what, local.value(), read);
        }
        StoreResult<T> atHome = serving.equals(home) ? local : read(home, read);
        if (atHome.isOk()) {
            return new ReadinessResult<>(ReadinessResult.Outcome.HOME, atHome.value(), null,
                                         what + " not yet in " + serving + "; read from home region " + home);
        }
        if (atHome.status() == StoreResult.Status.NOT_FOUND) {
            return new ReadinessResult<>(ReadinessResult.Outcome.NOT_FOUND, null, null,
                                         what + " does not exist (home region " + home + " says so)");
        }
        String why = what + " not in " + serving + " and home region " + home + " cannot be read ("
                     + atHome.detail() + ")";
        if (!rebuildable) {
            return notReady(why, retryAfter);
        }
        long waitNanos = sessionRebuilds.tryTake();
        if (waitNanos == 0) {
            return new ReadinessResult<>(ReadinessResult.Outcome.REBUILD, null, null,
                                         why + "; rebuild admitted in " + serving);
        }
        return notReady(why + "; session rebuilds in " + serving + " are rate-limited", Duration.ofNanos(waitNanos));
    }

    /** The local copy, unless replication from the home lags beyond the bound and the home can say better. */
    private <T> ReadinessResult<T> freshest(Region serving, Region home, String what, T localValue,
                                            Function<RegionalStore, StoreResult<T>> read) {
        long lagMillis = lag.lagMillis(home, serving);
        if (lagMillis <= maxLagMillis) {
            return new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, localValue, null, what + " read in " + serving);
        }
        String stale = what + " in " + serving + " may be stale (" + home + "->" + serving + " lags " + lagMillis
                       + " ms, expected: <= " + maxLagMillis + " ms)";
        StoreResult<T> atHome = read(home, read);
        return switch (atHome.status()) {
            case OK -> new ReadinessResult<>(ReadinessResult.Outcome.HOME, atHome.value(), null,
                                             stale + "; read from home region " + home);
            case NOT_FOUND -> new ReadinessResult<>(ReadinessResult.Outcome.NOT_FOUND, null, null,
                                                    stale + "; home region " + home + " no longer has it");
            default -> new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, localValue, null,
                                             stale + "; home region " + home + " cannot be read (" + atHome.detail()
                                             + ")");
        };
    }

    private <T> StoreResult<T> read(Region region, Function<RegionalStore, StoreResult<T>> read) {
        return stores.store(region).map(read)
                     .orElseGet(() -> StoreResult.unavailable(region, "no route to its store"));
    }

    private static <T> ReadinessResult<T> notReady(String why, Duration wait) {
        return new ReadinessResult<>(ReadinessResult.Outcome.NOT_READY, null,
                                     new DataProblem(DataProblem.Type.DATA_NOT_READY, why, wait), why);
    }
}
