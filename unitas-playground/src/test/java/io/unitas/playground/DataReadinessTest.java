package io.unitas.playground;

import static io.unitas.playground.EmbeddedRegions.CN;
import static io.unitas.playground.EmbeddedRegions.EU;
import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.DataReadiness;
import io.unitas.data.HomeResolver;
import io.unitas.data.ReadinessResult;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.Cart;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.Session;
import io.unitas.playground.store.SessionRef;
import io.unitas.playground.store.ShopData;
import io.unitas.playground.store.StoreMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DataReadinessTest {

    @RegisterExtension
    final EmbeddedRegions regions = new EmbeddedRegions();
    final FakeClock clock = regions.clock;
    final RegionalStore cn = regions.cn;
    final RegionalStore eu = regions.eu;
    final TokenBucket rebuilds = TokenBucket.of(1.0, 2, clock::nanoTime);

    /** The shop's data layer serving in {@code serving}, for users at home in cn. */
    ShopData servedIn(Region serving) {
        return ShopData.of(serving, regions.stores, HomeResolver.always(CN), clock, rebuilds);
    }

    @ParameterizedTest(name = "served in {0}, user in eu: {1}, in cn: {2}, cn {3} -> {4}")
    @CsvSource(textBlock = """
            eu, true,  true,  READ_WRITE,  LOCAL
            eu, true,  false, UNAVAILABLE, LOCAL
            eu, false, true,  READ_WRITE,  HOME
            eu, false, true,  READ_ONLY,   HOME
            eu, false, true,  UNAVAILABLE, NOT_READY
            eu, false, false, READ_WRITE,  NOT_FOUND
            cn, false, true,  READ_WRITE,  LOCAL
            cn, false, false, READ_WRITE,  NOT_FOUND
            cn, false, true,  UNAVAILABLE, NOT_READY
            """)
    void account_ofACnUser(String serving, boolean inEu, boolean inCn, StoreMode cnMode,
                           ReadinessResult.Outcome expected) {
        Account alice = new Account("alice", "u-cn-1", CN, "Alice", clock.instant());
        if (inEu) {
            eu.putAccount(alice);
        }
        if (inCn) {
            cn.putAccount(alice);
        }
        cn.mode(cnMode);
        ReadinessResult<Account> result = servedIn(Region.of(serving)).accounts().read("alice");
        assertThat(result.outcome()).isEqualTo(expected);
        assertThat(result.hasValue() ? result.value() : alice).isEqualTo(alice);
    }

    @ParameterizedTest(name = "served in {0}, cn {1} -> {2} with {3}")
    @CsvSource(textBlock = """
            eu, READ_WRITE,  HOME,      book+cup
            eu, READ_ONLY,   HOME,      book+cup
            eu, UNAVAILABLE, LOCAL,     cup
            cn, READ_WRITE,  LOCAL,     book
            cn, UNAVAILABLE, NOT_READY, ''
            """)
    void cart_ofACnUser_isMergedWithTheHomesWhenReadable_andStaysAvailableWhenNot(
            String serving, StoreMode cnMode, ReadinessResult.Outcome expected, String items) {
        cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
        eu.updateCart("alice", (c, replica) -> c.add(replica, "cup", 1));
        cn.mode(cnMode);
        ReadinessResult<Cart> result = servedIn(Region.of(serving)).carts().read("alice");
        assertThat(result.outcome()).isEqualTo(expected);
        assertThat(result.hasValue() ? String.join("+", result.value().items().keySet()) : "").isEqualTo(items);
    }

    @Test
    void staleLocalCopy_beyondTheLagBound_yieldsToTheHome() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).build();
        // A copy in eu is current as of the time eu had applied everything cn wrote before it.
        DataReadiness<SessionRef, Session> bounded = DataReadiness.<SessionRef, Session>builder()
                .region(EU).homes(HomeResolver.always(CN), SessionRef::userId).describe(ref -> "session")
                .local(ref -> eu.session(ref.token())).home((home, ref) -> cn.session(ref.token()))
                .freshness((ref, session) -> clock.instant().minusMillis(replicator.lagMillis(CN, EU)),
                           Duration.ofSeconds(5))
                .clock(clock).build();
        cn.putSession(new Session("t1", "alice", clock.instant().plus(Duration.ofHours(1))));
        replicator.replicateDue();
        replicator.pause(CN, EU);
        cn.putSession(new Session("t1", "alice", clock.instant())); // logged out in cn

        clock.advance(Duration.ofSeconds(5));
        replicator.replicateDue();
        assertThat(bounded.read(new SessionRef("alice", "t1")).outcome()).isEqualTo(ReadinessResult.Outcome.LOCAL);

        clock.advance(Duration.ofMillis(1));
        ReadinessResult<Session> result = bounded.read(new SessionRef("alice", "t1"));
        assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
        assertThat(result.detail()).isEqualTo("session in eu may be stale (current as of 5001 ms ago, expected: <= 5000 ms);"
                                              + " home region cn no longer has it");
        assertThat(servedIn(EU).sessions().read(new SessionRef("alice", "t1")).outcome()).as("without a bound").isEqualTo(
                ReadinessResult.Outcome.LOCAL);

        cn.mode(StoreMode.UNAVAILABLE);
        assertThat(bounded.read(new SessionRef("alice", "t1")).outcome()).as("stale beats nothing when the home is down")
                .isEqualTo(ReadinessResult.Outcome.LOCAL);
    }

    @Test
    void notReady_isARetryable503NamingTheUserAndRegions() {
        cn.mode(StoreMode.UNAVAILABLE);
        ReadinessResult<Account> result = servedIn(EU).accounts().read("alice");
        assertThat(result.problem().type().id()).isEqualTo("data-not-ready");
        assertThat(result.problem().type().status()).isEqualTo(503);
        assertThat(result.problem().retryable()).isTrue();
        assertThat(result.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(result.problem().detail()).isEqualTo(
                "account of user alice not in eu and home region cn cannot be read (cn: store is unavailable:"
                + " switched off)");
    }

    @Test
    void session_missingEverywhereReadable_isRebuiltAtTheBucketsPace() {
        cn.mode(StoreMode.UNAVAILABLE);
        assertThat(servedIn(EU).sessions().read(new SessionRef("alice", "t1")).outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
        assertThat(servedIn(EU).sessions().read(new SessionRef("alice", "t2")).outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
        ReadinessResult<Session> limited = servedIn(EU).sessions().read(new SessionRef("alice", "t3"));
        assertThat(limited.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
        assertThat(limited.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));

        clock.advance(Duration.ofSeconds(1));
        assertThat(servedIn(EU).sessions().read(new SessionRef("alice", "t3")).outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
    }

    @Test
    void session_thatTheHomeSaysDoesNotExist_isNotFound_andNeedsNoRebuild() {
        assertThat(servedIn(EU).sessions().read(new SessionRef("alice", "t1")).outcome()).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
    }
}
