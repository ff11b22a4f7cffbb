package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;

/** Asks every other region at once and waits for all of them (each bounded by its own deadline). */
final class AskingOtherRegions implements OtherRegions {

    /** How one region is asked: over the network or in this process. */
    interface Asker {
        <T> CompletionStage<StoreResult<T>> entity(Region region, String unit, String type, String key,
                                                   Function<String, T> decode);

        CompletionStage<StoreResult<IdempotencyRecord>> record(Region region, String unit, String key);
    }

    private final Region serving;
    private final List<Region> regions;
    private final HomeResolver homes;
    private final Asker ask;

    AskingOtherRegions(Region serving, List<Region> regions, HomeResolver homes, Asker ask) {
        this.serving = Objects.requireNonNull(serving, "serving");
        this.regions = List.copyOf(regions);
        this.homes = Objects.requireNonNull(homes, "homes");
        this.ask = ask;
    }

    @Override
    public Lookup<Account> account(String user) {
        return first(user, null, (region, unit) -> ask.entity(region, unit, ShopData.ACCOUNT, user,
                                                              ChangeCodec::account), a -> true);
    }

    @Override
    public Lookup<Session> session(String user, String token) {
        return first(user, null, (region, unit) -> ask.entity(region, unit, ShopData.SESSION, token,
                                                              ChangeCodec::session),
                     s -> s.userId().equals(user));
    }

    @Override
    public Optional<StoredResponse> completedCheckout(String key, String user, String fingerprint) {
        Home home = homes.home(user);
        Region skip = home.found() ? home.region() : null;
        Lookup<IdempotencyRecord> r = first(user, skip, (region, unit) -> ask.record(region, unit, key),
                rec -> !rec.inFlight() && rec.userId().equals(user) && rec.payloadHash().equals(fingerprint));
        return Optional.ofNullable(r.value()).map(IdempotencyRecord::response);
    }

    private <T> OtherRegions.Lookup<T> first(String user, Region skip,
                                BiFunction<Region, String, CompletionStage<StoreResult<T>>> read,
                                Predicate<T> wanted) {
        Home home = homes.home(user);
        if (!home.found()) {
            return new OtherRegions.Lookup<>(null, List.of(user + ": " + home.problem()));
        }
        List<CompletableFuture<StoreResult<T>>> asked = new ArrayList<>();
        for (Region r : regions) {
            if (!r.equals(serving) && !r.equals(skip)) {
                asked.add(read.apply(r, home.unit()).toCompletableFuture());
            }
        }
        T found = null;
        List<String> unanswered = new ArrayList<>();
        for (CompletableFuture<StoreResult<T>> f : asked) {
            StoreResult<T> r = f.join();
            if (r.isOk() && found == null && wanted.test(r.value())) {
                found = r.value();
            } else if (!r.isOk() && r.status() != StoreResult.Status.NOT_FOUND) {
                unanswered.add(r.detail());
            }
        }
        return new OtherRegions.Lookup<>(found, unanswered);
    }
}
