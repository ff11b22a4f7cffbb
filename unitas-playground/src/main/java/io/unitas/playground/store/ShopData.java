package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.DataReadiness;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.remote.HomeReadClient;
import io.unitas.data.remote.HomeReadServer;
import io.unitas.data.remote.StoredEntity;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The shop's entities on the generic data layer, for one serving region: readiness for accounts, sessions and
 * carts, and idempotency for checkouts. Entities not yet here are read from their home region over the network
 * (a {@link HomeReadClient} here, {@link #serve} at the home), or in this process for tests; the local store and
 * the idempotency records are reached through a {@link StoreDirectory}.
 *
 * @param accounts  accounts by user id
 * @param sessions  sessions by the user and token a request presents; rebuilt at the bucket's pace after a failover
 * @param carts     carts by user id, merged with the home's (they are CRDTs)
 * @param checkouts Idempotency-Key records of checkouts, kept with the user's home unit
 */
public record ShopData(DataReadiness<String, Account> accounts, DataReadiness<SessionRef, Session> sessions,
                       DataReadiness<String, Cart> carts, Idempotency checkouts) {

    /** The entity types a home serves to the other regions (see {@link #serve}). */
    static final String ACCOUNT = "account";
    static final String SESSION = "session";
    static final String CART = "cart";

    /** Requires every part. */
    public ShopData {
        Objects.requireNonNull(accounts, "accounts");
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(carts, "carts");
        Objects.requireNonNull(checkouts, "checkouts");
    }

    /**
     * The shop's data layer serving in {@code serving}, with homes by {@code homes} and session rebuilds limited by
     * {@code sessionRebuilds}, reading the homes' stores in this process (one JVM, tests).
     */
    public static ShopData of(Region serving, StoreDirectory stores, HomeResolver homes, Clock clock,
                              TokenBucket sessionRebuilds) {
        return of(serving, stores, homes, clock, sessionRebuilds, (home, unit) -> stores.store(home).map(s -> s),
                  new HomeReads(
                          (home, user) -> done(read(stores, home, s -> s.account(user))),
                          (home, ref) -> done(read(stores, home, s -> s.session(ref.token()))),
                          (home, user) -> done(read(stores, home, s -> s.cart(user))),
                          Duration.ofSeconds(2)));
    }

    /**
     * The shop's data layer serving in {@code serving}, reading accounts, sessions and carts from their home region
     * and keeping checkouts' Idempotency-Key records in the home unit's store, both over the network through
     * {@code homeReads} when the home is another region (each home serving them with {@link #serve}); this region's
     * own store is reached through {@code stores}, and no other.
     */
    public static ShopData of(Region serving, StoreDirectory stores, HomeResolver homes, HomeReadClient homeReads,
                              Clock clock) {
        Objects.requireNonNull(homeReads, "homeReads");
        // Checkouts claim their keys in the home unit's store: this region's own, or the home's over the network.
        BiFunction<Region, String, Optional<IdempotencyStore>> checkoutStores = (home, unit) -> home.equals(serving)
                ? stores.store(serving).map(s -> s) : Optional.of(homeReads.idempotency(home, unit));
        return of(serving, stores, homes, clock, sessionRebuilds(clock), checkoutStores,
                  new HomeReads(
                          (home, user) -> remote(homeReads, homes, home, ACCOUNT, user, user,
                                                 ChangeCodec::account),
                          (home, ref) -> remote(homeReads, homes, home, SESSION, ref.userId(), ref.token(),
                                                ChangeCodec::session),
                          (home, user) -> remote(homeReads, homes, home, CART, user, user, ChangeCodec::cart),
                          Duration.ofMinutes(1)));
    }

    /**
     * Lets other regions read the shop's accounts, sessions and carts from {@code store} through {@code server}, on
     * {@code clock}, and claim, complete and release checkouts' Idempotency-Keys in it (the home's end of
     * {@link #of(Region, StoreDirectory, HomeResolver, HomeReadClient, Clock)}). A store that cannot answer fails the
     * read, which the caller sees as {@code data-not-ready}, never as "not found".
     */
    public static HomeReadServer.Builder serve(HomeReadServer.Builder server, RegionalStore store, Clock clock) {
        // Sessions and carts carry no time of their acknowledgement: they are vouched for as of the read.
        Clock now = Objects.requireNonNull(clock, "clock");
        return server.reader(ACCOUNT, (unit, user) -> found(store.account(user), ChangeCodec::account,
                                                            Account::registeredAt))
                     .reader(SESSION, (unit, token) -> found(store.session(token), ChangeCodec::session,
                                                             s -> now.instant()))
                     .reader(CART, (unit, user) -> found(store.cart(user), ChangeCodec::cart, c -> now.instant()))
                     .idempotency(store);
    }

    private static ShopData of(Region serving, StoreDirectory stores, HomeResolver homes, Clock clock,
                               TokenBucket sessionRebuilds,
                               BiFunction<Region, String, Optional<IdempotencyStore>> checkoutStores,
                               HomeReads fromHome) {
        DataReadiness<String, Account> accounts = DataReadiness.<String, Account>builder()
                .region(serving).homes(homes).describe(user -> "account of user " + user)
                .local(user -> read(stores, serving, s -> s.account(user)))
                .homeAsync(fromHome.accounts()).homeTimeout(fromHome.timeout())
                .build();
        DataReadiness<SessionRef, Session> sessions = DataReadiness.<SessionRef, Session>builder()
                .region(serving).homes(homes, SessionRef::userId).describe(ref -> "session")
                .local(ref -> read(stores, serving, s -> s.session(ref.token())))
                .homeAsync(fromHome.sessions()).homeTimeout(fromHome.timeout())
                .rebuilds(sessionRebuilds)
                .build();
        DataReadiness<String, Cart> carts = DataReadiness.<String, Cart>builder()
                .region(serving).homes(homes).describe(user -> "cart of user " + user)
                .local(user -> read(stores, serving, s -> s.cart(user)))
                .homeAsync(fromHome.carts()).homeTimeout(fromHome.timeout())
                .merge(Cart::merge)
                .build();
        Idempotency checkouts = Idempotency.builder().region(serving).homes(homes).unitStores(checkoutStores)
                .clock(clock).build();
        return new ShopData(accounts, sessions, carts, checkouts);
    }

    /**
     * How each entity type is read from its home region, and how long a read may take: over the network the
     * client's own deadline ends every read, so readiness only guards against a read that never ends.
     */
    private record HomeReads(BiFunction<Region, String, CompletionStage<StoreResult<Account>>> accounts,
                             BiFunction<Region, SessionRef, CompletionStage<StoreResult<Session>>> sessions,
                             BiFunction<Region, String, CompletionStage<StoreResult<Cart>>> carts,
                             Duration timeout) {}

    /** The shop's data layer with session rebuilds of 50 at once, then 20 a second, on {@code clock}. */
    public static ShopData of(Region serving, StoreDirectory stores, HomeResolver homes, Clock clock) {
        return of(serving, stores, homes, clock, sessionRebuilds(clock));
    }

    private static TokenBucket sessionRebuilds(Clock clock) {
        return TokenBucket.of(20, 50, () -> nanos(clock.instant()));
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private static <T> CompletionStage<StoreResult<T>> done(StoreResult<T> result) {
        return CompletableFuture.completedFuture(result);
    }

    /** A home read over the network as a store's answer: only the home's own "not found" reads as absent. */
    private static <T> CompletionStage<StoreResult<T>> remote(HomeReadClient client, HomeResolver homes, Region home,
                                                              String type, String userId, String key,
                                                              Function<String, T> decode) {
        Home at = homes.home(userId);
        if (!at.found()) {
            return done(StoreResult.unavailable(home, at.problem()));
        }
        return client.read(home, at.unit(), type, key).thenApply(r -> switch (r.outcome()) {
            case FOUND -> StoreResult.ok(decode.apply(new String(r.entity().payload(), StandardCharsets.UTF_8)));
            case NOT_FOUND -> StoreResult.<T>notFound(home, type, key);
            default -> StoreResult.<T>unavailable(home, r.detail());
        });
    }

    /** A store's answer as a home read's: found, absent, or a failure the caller sees as not ready. */
    private static <T> Optional<StoredEntity> found(StoreResult<T> result, Function<T, String> encode,
                                                    Function<T, Instant> acknowledgedAt) {
        return switch (result.status()) {
            case OK -> Optional.of(new StoredEntity(0, encode.apply(result.value()).getBytes(StandardCharsets.UTF_8),
                                                    acknowledgedAt.apply(result.value())));
            case NOT_FOUND -> Optional.empty();
            default -> throw new IllegalStateException(result.detail());
        };
    }

    private static <T> StoreResult<T> read(StoreDirectory stores, Region region,
                                           Function<RegionalStore, StoreResult<T>> read) {
        return stores.store(region).map(read)
                     .orElseGet(() -> StoreResult.unavailable(region, "no route to its store"));
    }
}
