package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.data.HomeResolver;
import io.unitas.data.remote.HomeRead;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Looks for a user's account, session or completed checkout in the regions other than the serving one, whether or
 * not they own the user's unit now: data written outside its home (in a failover region, or in an old home before a
 * promotion) that replication has not brought home yet. A copy found proves the data exists; an absence proves
 * nothing unless every region answered. Over the network in the playground (copy reads through a
 * {@link HomeReadClient}, each region serving them with {@link ShopData#serve}), or in this process for tests.
 */
public interface OtherRegions {

    /** Looks nowhere, as a naive shop does: nothing found, and nobody left unasked. */
    static OtherRegions none() {
        return new OtherRegions() {
            @Override
            public Lookup<Account> account(String user) {
                return new Lookup<>(null, List.of());
            }

            @Override
            public Lookup<Session> session(String user, String token) {
                return new Lookup<>(null, List.of());
            }

            @Override
            public Optional<StoredResponse> completedCheckout(String key, String user, String fingerprint) {
                return Optional.empty();
            }
        };
    }

    /** Asks the other regions of {@code regions} through {@code client}'s copy reads (one at a time per region). */
    static OtherRegions network(Region serving, List<Region> regions, HomeResolver homes, HomeReadClient client) {
        Objects.requireNonNull(client, "client");
        return new AskingOtherRegions(serving, regions, homes, new AskingOtherRegions.Asker() {
            @Override
            public <T> CompletionStage<StoreResult<T>> entity(Region region, String unit, String type, String key,
                                                              Function<String, T> decode) {
                return client.readCopy(region, unit, type, key).thenApply(r -> copy(r, region, type, key, decode));
            }

            @Override
            public CompletionStage<StoreResult<IdempotencyRecord>> record(Region region, String unit, String key) {
                return client.idempotencyRecordCopy(region, unit, key);
            }
        });
    }

    /** Reads the other regions' stores in this process (tests that run every region in one JVM). */
    static OtherRegions inProcess(Region serving, List<Region> regions, HomeResolver homes, StoreDirectory stores) {
        return new AskingOtherRegions(serving, regions, homes, new AskingOtherRegions.Asker() {
            @Override
            public <T> CompletionStage<StoreResult<T>> entity(Region region, String unit, String type, String key,
                                                              Function<String, T> decode) {
                Optional<RegionalStore> store = stores.store(region);
                if (store.isEmpty()) {
                    return CompletableFuture.completedFuture(StoreResult.unavailable(region, "no route to its store"));
                }
                @SuppressWarnings("unchecked")
                StoreResult<T> r = (StoreResult<T>) switch (type) {
                    case ShopData.ACCOUNT -> store.get().account(key);
                    case ShopData.SESSION -> store.get().session(key);
                    default -> throw new IllegalArgumentException("type: " + type);
                };
                return CompletableFuture.completedFuture(r);
            }

            @Override
            public CompletionStage<StoreResult<IdempotencyRecord>> record(Region region, String unit, String key) {
                return CompletableFuture.completedFuture(stores.store(region).map(s -> s.idempotencyRecord(key))
                        .orElseGet(() -> StoreResult.unavailable(region, "no route to its store")));
            }
        });
    }

    /** The account of {@code user} in the first other region that holds one. */
    Lookup<Account> account(String user);

    /** The session {@code token} of {@code user} in the first other region that holds it. */
    Lookup<Session> session(String user, String token);

    /**
     * The stored response of {@code key} completed for {@code user} with {@code fingerprint} in a region other than
     * the serving one and the user's home (the home's record is {@link io.unitas.data.Idempotency}'s to answer).
     */
    Optional<StoredResponse> completedCheckout(String key, String user, String fingerprint);

    /**
     * What the other regions hold.
     *
     * @param value      the first copy found, or {@code null}
     * @param unanswered why each region that could not be asked did not answer; empty when all did
     * @param <T>        the entity
     */
    record Lookup<T>(T value, List<String> unanswered) {

        /** Copies the list. */
        public Lookup {
            unanswered = List.copyOf(unanswered);
        }

        /** Whether a copy was found. */
        public boolean found() {
            return value != null;
        }
    }

    /** A copy read's answer as a store's: found, not there, or could not be asked. */
    private static <T> StoreResult<T> copy(HomeRead r, Region region, String type, String key,
                                           Function<String, T> decode) {
        return switch (r.outcome()) {
            case FOUND -> StoreResult.ok(decode.apply(new String(r.entity().payload(), StandardCharsets.UTF_8)));
            case NOT_FOUND -> StoreResult.notFound(region, type, key);
            default -> StoreResult.unavailable(region, r.detail());
        };
    }
}
