package io.unitas.data;

import static io.unitas.data.EmbeddedRegions.CN;
import static io.unitas.data.EmbeddedRegions.EU;
import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.core.crdt.Cart;
import io.unitas.core.fence.TokenBucket;
import io.unitas.data.replication.Replicator;
import io.unitas.data.store.Account;
import io.unitas.data.store.RegionalStore;
import io.unitas.data.store.Session;
import io.unitas.data.store.StoreMode;
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
    final DataReadiness readiness = DataReadiness.builder().stores(regions.stores)
            .sessionRebuilds(TokenBucket.of(1.0, 2, clock::nanoTime)).build();

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
        ReadinessResult<Account> result = readiness.account(Region.of(serving), CN, "alice");
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
        ReadinessResult<Cart> result = readiness.cart(Region.of(serving), CN, "alice");
        assertThat(result.outcome()).isEqualTo(expected);
        assertThat(result.hasValue() ? String.join("+", result.value().items().keySet()) : "").isEqualTo(items);
    }

    @Test
    void staleLocalCopy_beyondTheLagBound_yieldsToTheHome() {
        Replicator replicator = Replicator.builder().stores(cn, eu).clock(clock).build();
        DataReadiness bounded = DataReadiness.builder().stores(regions.stores)
                .freshness(replicator, Duration.ofSeconds(5)).build();
        cn.putSession(new Session("t1", "alice", clock.instant().plus(Duration.ofHours(1))));
        replicator.replicateDue();
        replicator.pause(CN, EU);
        cn.putSession(new Session("t1", "alice", clock.instant())); // logged out in cn

        clock.advance(Duration.ofSeconds(5));
        replicator.replicateDue();
        assertThat(bounded.session(EU, CN, "t1").outcome()).isEqualTo(ReadinessResult.Outcome.LOCAL);

        clock.advance(Duration.ofMillis(1));
        ReadinessResult<Session> result = bounded.session(EU, CN, "t1");
        assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
        assertThat(result.detail()).isEqualTo("session in eu may be stale (cn->eu lags 5001 ms, expected: <= 5000 ms);"
                                              + " home region cn no longer has it");
        assertThat(readiness.session(EU, CN, "t1").outcome()).as("without a bound").isEqualTo(
                ReadinessResult.Outcome.LOCAL);

        cn.mode(StoreMode.UNAVAILABLE);
        assertThat(bounded.session(EU, CN, "t1").outcome()).as("stale beats nothing when the home is down")
                .isEqualTo(ReadinessResult.Outcome.LOCAL);
    }

    @Test
    void notReady_isARetryable503NamingTheUserAndRegions() {
        cn.mode(StoreMode.UNAVAILABLE);
        ReadinessResult<Account> result = readiness.account(EU, CN, "alice");
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
        assertThat(readiness.session(EU, CN, "t1").outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
        assertThat(readiness.session(EU, CN, "t2").outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
        ReadinessResult<Session> limited = readiness.session(EU, CN, "t3");
        assertThat(limited.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
        assertThat(limited.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));

        clock.advance(Duration.ofSeconds(1));
        assertThat(readiness.session(EU, CN, "t3").outcome()).isEqualTo(ReadinessResult.Outcome.REBUILD);
    }

    @Test
    void session_thatTheHomeSaysDoesNotExist_isNotFound_andNeedsNoRebuild() {
        assertThat(readiness.session(EU, CN, "t1").outcome()).isEqualTo(ReadinessResult.Outcome.NOT_FOUND);
    }
}
