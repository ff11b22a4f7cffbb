package io.unitas.playground.store;

import io.unitas.core.Region;
import io.unitas.core.crdt.Cart;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.DataReadiness;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.store.StoreResult;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;

/**
 * The shop's entities on the generic data layer, for one serving region: readiness for accounts, sessions and
 * carts, and idempotency for checkouts, each reading the regional stores through a {@link StoreDirectory}.
 *
 * @param accounts  accounts by user id
 * @param sessions  sessions by the user and token a request presents; rebuilt at the bucket's pace after a failover
 * @param carts     carts by user id, merged with the home's (they are CRDTs)
 * @param checkouts Idempotency-Key records of checkouts, kept with the user's home unit
 */
public record ShopData(DataReadiness<String, Account> accounts, DataReadiness<SessionRef, Session> sessions,
                       DataReadiness<String, Cart> carts, Idempotency checkouts) {

    /** Requires every part. */
    public ShopData {
        Objects.requireNonNull(accounts, "accounts");
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(carts, "carts");
        Objects.requireNonNull(checkouts, "checkouts");
    }

    /**
     * The shop's data layer serving in {@code serving}, with homes by {@code homes} and session rebuilds limited by
     * {@code sessionRebuilds}.
     */
    public static ShopData of(Region serving, StoreDirectory stores, HomeResolver homes, Clock clock,
                              TokenBucket sessionRebuilds) {
        DataReadiness<String, Account> accounts = DataReadiness.<String, Account>builder()
                .region(serving).homes(homes).describe(user -> "account of user " + user)
                .local(user -> read(stores, serving, s -> s.account(user)))
                .home((home, user) -> read(stores, home, s -> s.account(user)))
                .build();
        DataReadiness<SessionRef, Session> sessions = DataReadiness.<SessionRef, Session>builder()
                .region(serving).homes(homes, SessionRef::userId).describe(ref -> "session")
                .local(ref -> read(stores, serving, s -> s.session(ref.token())))
                .home((home, ref) -> read(stores, home, s -> s.session(ref.token())))
                .rebuilds(sessionRebuilds)
                .build();
        DataReadiness<String, Cart> carts = DataReadiness.<String, Cart>builder()
                .region(serving).homes(homes).describe(user -> "cart of user " + user)
                .local(user -> read(stores, serving, s -> s.cart(user)))
                .home((home, user) -> read(stores, home, s -> s.cart(user)))
                .merge(Cart::merge)
                .build();
        Idempotency checkouts = Idempotency.builder().region(serving).homes(homes)
                .stores(region -> stores.store(region).map(s -> s)).clock(clock).build();
        return new ShopData(accounts, sessions, carts, checkouts);
    }

    /** The shop's data layer with session rebuilds of 50 at once, then 20 a second, on {@code clock}. */
    public static ShopData of(Region serving, StoreDirectory stores, HomeResolver homes, Clock clock) {
        return of(serving, stores, homes, clock, TokenBucket.of(20, 50, () -> nanos(clock.instant())));
    }

    private static long nanos(Instant instant) {
        return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    }

    private static <T> StoreResult<T> read(StoreDirectory stores, Region region,
                                           Function<RegionalStore, StoreResult<T>> read) {
        return stores.store(region).map(read)
                     .orElseGet(() -> StoreResult.unavailable(region, "no route to its store"));
    }
}
