package io.unitas.data;

import io.unitas.core.Region;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/** {@link DataReadiness}: the local store, then the home region, then not-ready or a rate-limited rebuild. */
final class HomeFallbackReadiness<K, V> implements DataReadiness<K, V> {

    private final Region serving;
    private final HomeResolver homes;
    private final Function<? super K, String> unitKey;
    private final Function<? super K, StoreResult<V>> local;
    private final BiFunction<Region, ? super K, ? extends CompletionStage<StoreResult<V>>> home;
    private final long homeTimeoutNanos;
    private final Function<? super K, String> describe;
    private final BiFunction<? super K, ? super V, Instant> asOf;
    private final Duration maxAge;
    private final Clock clock;
    private final BinaryOperator<V> merge;
    private final TokenBucket rebuilds;
    private final Duration retryAfter;

    HomeFallbackReadiness(DataReadiness.Builder<K, V> b) {
        this.serving = b.region;
        this.homes = b.resolver;
        this.unitKey = b.unitKey;
        this.local = b.local;
        this.home = b.home;
        this.homeTimeoutNanos = b.homeTimeout.toNanos();
        this.describe = b.describe;
        this.asOf = b.asOf;
        this.maxAge = b.maxAge;
        this.clock = b.clock;
        this.merge = b.merge;
        this.rebuilds = b.rebuilds;
        this.retryAfter = b.retryAfter;
    }

    @Override
    public Region region() {
        return serving;
    }

    @Override
    public ReadinessResult<V> read(K key) {
        // readAsync never fails and its home read is bounded by the timeout, so join returns.
        return readAsync(key).toCompletableFuture().join();
    }

    @Override
    public CompletionStage<ReadinessResult<V>> readAsync(K key) {
        String what = describe.apply(key);
        Home at = homes.home(unitKey.apply(key));
        if (!at.found()) {
            DataProblem problem = new DataProblem(DataProblem.Type.NO_UNIT, what + ": " + at.problem(),
                                                  Duration.ZERO);
            return CompletableFuture.completedFuture(
                    new ReadinessResult<>(ReadinessResult.Outcome.NO_UNIT, null, problem, problem.detail()));
        }
        Region homeRegion = at.region();
        StoreResult<V> here = readLocal(key);
        if (merge != null) {
            CompletionStage<StoreResult<V>> atHome = serving.equals(homeRegion)
                    ? CompletableFuture.completedFuture(here) : readHome(homeRegion, key);
            return atHome.thenApply(h -> merged(what, homeRegion, here, h));
        }
        if (here.isOk()) {
            if (serving.equals(homeRegion)) {
                return done(new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, here.value(), null,
                                                  what + " read in " + serving));
            }
            return freshest(key, what, homeRegion, here.value());
        }
        if (serving.equals(homeRegion)) {
            return done(missing(what, homeRegion, here));
        }
        return readHome(homeRegion, key).thenApply(h -> h.isOk()
                ? new ReadinessResult<>(ReadinessResult.Outcome.HOME, h.value(), null,
                                        what + " not yet in " + serving + "; read from home region " + homeRegion)
                : missing(what, homeRegion, h));
    }

    /** Nothing here that counts: the home's answer decides between not found, a rebuild and not ready. */
    private ReadinessResult<V> missing(String what, Region homeRegion, StoreResult<V> atHome) {
        if (atHome.status() == StoreResult.Status.NOT_FOUND) {
            return new ReadinessResult<>(ReadinessResult.Outcome.NOT_FOUND, null, null,
                                         what + " does not exist (home region " + homeRegion + " says so)");
        }
        String why = serving.equals(homeRegion)
                     ? what + " cannot be read in its home region " + homeRegion + " (" + atHome.detail() + ")"
                     : what + " not in " + serving + " and home region " + homeRegion + " cannot be read ("
                       + atHome.detail() + ")";
        if (rebuilds == null) {
            return notReady(why, retryAfter);
        }
        long waitNanos = rebuilds.tryTake();
        if (waitNanos == 0) {
            return new ReadinessResult<>(ReadinessResult.Outcome.REBUILD, null, null,
                                         why + "; rebuild admitted in " + serving);
        }
        return notReady(why + "; rebuilds in " + serving + " are rate-limited", Duration.ofNanos(waitNanos));
    }

    /** The local copy, unless it is older than the freshness bound and the home can say better. */
    private CompletionStage<ReadinessResult<V>> freshest(K key, String what, Region homeRegion, V localValue) {
        if (asOf == null) {
            return done(new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, localValue, null,
                                              what + " read in " + serving));
        }
        Duration age = Duration.between(asOf.apply(key, localValue), clock.instant());
        if (age.compareTo(maxAge) <= 0) {
            return done(new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, localValue, null,
                                              what + " read in " + serving));
        }
        String stale = what + " in " + serving + " may be stale (current as of " + age.toMillis()
                       + " ms ago, expected: <= " + maxAge.toMillis() + " ms)";
        return readHome(homeRegion, key).thenApply(h -> switch (h.status()) {
            case OK -> new ReadinessResult<>(ReadinessResult.Outcome.HOME, h.value(), null,
                                             stale + "; read from home region " + homeRegion);
            case NOT_FOUND -> new ReadinessResult<>(ReadinessResult.Outcome.NOT_FOUND, null, null,
                                                    stale + "; home region " + homeRegion + " no longer has it");
            default -> new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, localValue, null,
                                             stale + "; home region " + homeRegion + " cannot be read ("
                                             + h.detail() + ")");
        });
    }

    private ReadinessResult<V> merged(String what, Region homeRegion, StoreResult<V> here, StoreResult<V> atHome) {
        if (atHome.isOk() && !serving.equals(homeRegion)) {
            V value = here.isOk() ? merge.apply(here.value(), atHome.value()) : atHome.value();
            return new ReadinessResult<>(ReadinessResult.Outcome.HOME, value, null,
                                         what + " in " + serving + " merged with home region " + homeRegion + "'s");
        }
        if (here.isOk()) {
            return new ReadinessResult<>(ReadinessResult.Outcome.LOCAL, here.value(), null,
                                         serving.equals(homeRegion) ? what + " read in " + serving
                                                 : what + " read in " + serving + "; home region " + homeRegion
                                                   + " cannot be read (" + atHome.detail() + ")");
        }
        if (here.status() == StoreResult.Status.NOT_FOUND && atHome.status() == StoreResult.Status.NOT_FOUND) {
            return new ReadinessResult<>(ReadinessResult.Outcome.NOT_FOUND, null, null,
                                         what + " does not exist (home region " + homeRegion + " says so)");
        }
        return notReady(what + " cannot be read in " + serving + " (" + here.detail() + ") nor in home region "
                        + homeRegion, retryAfter);
    }

    private StoreResult<V> readLocal(K key) {
        try {
            return local.apply(key);
        } catch (RuntimeException e) {
            return StoreResult.unavailable(serving, String.valueOf(e.getMessage()));
        }
    }

    /** The home's answer within the timeout; a failure, a throw or silence reads as unavailable, never as absent. */
    private CompletionStage<StoreResult<V>> readHome(Region homeRegion, K key) {
        CompletionStage<StoreResult<V>> stage;
        try {
            stage = home.apply(homeRegion, key);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(
                    StoreResult.unavailable(homeRegion, String.valueOf(e.getMessage())));
        }
        // A dependent copy: the timeout must not complete the caller's own future.
        return stage.toCompletableFuture().thenApply(r -> r).orTimeout(homeTimeoutNanos, TimeUnit.NANOSECONDS)
                    .handle((r, e) -> e == null && r != null ? r : StoreResult.unavailable(homeRegion, failure(e)));
    }

    private String failure(Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                          ? e.getCause() : e;
        if (cause instanceof TimeoutException) {
            return "no answer within " + Duration.ofNanos(homeTimeoutNanos).toMillis() + " ms";
        }
        return cause == null ? "no answer" : String.valueOf(cause.getMessage());
    }

    private CompletionStage<ReadinessResult<V>> done(ReadinessResult<V> result) {
        return CompletableFuture.completedFuture(result);
    }

    private ReadinessResult<V> notReady(String why, Duration wait) {
        return new ReadinessResult<>(ReadinessResult.Outcome.NOT_READY, null,
                                     new DataProblem(DataProblem.Type.DATA_NOT_READY, why, wait), why);
    }
}
