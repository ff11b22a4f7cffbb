package io.unitas.playground;

import static io.unitas.playground.EmbeddedRegions.CN;
import static io.unitas.playground.EmbeddedRegions.EU;
import static io.unitas.playground.EmbeddedRegions.US;
import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.Router;
import io.unitas.core.Topology;
import io.unitas.data.DataProblem;
import io.unitas.data.Home;
import io.unitas.data.HomeResolver;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.ReadinessResult;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.Cart;
import io.unitas.playground.store.Order;
import io.unitas.playground.store.RegionalStore;
import io.unitas.playground.store.Session;
import io.unitas.playground.store.SessionRef;
import io.unitas.playground.store.ShopData;
import io.unitas.playground.store.StoreDirectory;
import io.unitas.playground.store.StoreMode;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The incident of seed 000, region by region: cn's database turns read-only, traffic fails over to eu while
 * replication from cn lags. Each failure the users saw is first reproduced with a local-only read, then shown
 * prevented by the data layer.
 */
class SeedIncidentTest {

    @RegisterExtension
    final EmbeddedRegions regions = new EmbeddedRegions();
    final FakeClock clock = regions.clock;
    final RegionalStore cn = regions.cn;
    final RegionalStore eu = regions.eu;
    final RegionalStore us = regions.us;
    final StoreDirectory stores = regions.stores;
    // Alice's unit, u-cn-7, is at home in cn.
    final HomeResolver homes = user -> Home.of(user, "u-cn-7", CN);
    // With cn's database read-only, cn's health turns down and routing sends cn's users to the first region of its
    // fallback order: eu. The data layer runs after that decision.
    final Region servedIn = Router.of(Topology.of("cn", "eu", "us"))
            .route(CN, HealthSnapshot.ofFlags(Map.of(CN, false, EU, true, US, true))).target();
    // Replication's usual 200 ms; the incident's backlog is a paused cn->eu link.
    final Replicator replicator = Replicator.builder().stores(cn, eu, us).clock(clock)
                                            .delay(Duration.ofMillis(200)).build();

    @AfterEach
    void stopReplication() {
        replicator.close();
    }

    /** cn keeps serving a while, then its database goes read-only with the cn->eu backlog not shipped. */
    void cnTurnsReadOnlyWithReplicationBehind() {
        replicator.pause(CN, EU);
        clock.advance(Duration.ofSeconds(1));
        replicator.replicateDue();
        cn.mode(StoreMode.READ_ONLY);
    }

    void replicationCatchesUp() {
        replicator.resume(CN, EU);
        clock.advance(Duration.ofSeconds(1));
        replicator.replicateDue();
    }

    @Nested
    @DisplayName("1. a user registered in cn minutes before the failover logs in through eu")
    class RegisteredJustBefore {

        final Account alice = new Account("alice", "u-cn-7", CN, "Alice", clock.instant());
        final ShopData inEu = ShopData.of(servedIn, stores, homes, clock);

        @Test
        void localOnlyRead_saysTheAccountDoesNotExist() {
            assertThat(servedIn).isEqualTo(EU);
            cn.putAccount(alice);
            cnTurnsReadOnlyWithReplicationBehind();
            assertThat(eu.account("alice").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        }

        @Test
        void readinessReadsTheAccountFromItsHome_cn() {
            cn.putAccount(alice);
            cnTurnsReadOnlyWithReplicationBehind();
            ReadinessResult<Account> result = inEu.accounts().read("alice");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
            assertThat(result.value()).isEqualTo(alice);
            assertThat(result.detail()).isEqualTo("account of user alice not yet in eu; read from home region cn");
        }

        @Test
        void withCnUnreadable_theAnswerIsDataNotReady_neverNotFound() {
            cn.putAccount(alice);
            cnTurnsReadOnlyWithReplicationBehind();
            cn.mode(StoreMode.UNAVAILABLE);
            ReadinessResult<Account> result = inEu.accounts().read("alice");
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.NOT_READY);
            assertThat(result.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);

            cn.mode(StoreMode.READ_ONLY);
            replicationCatchesUp();
            assertThat(inEu.accounts().read("alice").outcome()).isEqualTo(ReadinessResult.Outcome.LOCAL);
        }

        @Test
        void sessionThatLivedOnlyInCn_isReadFromCn() {
            Session session = new Session("t-alice", "alice", clock.instant().plus(Duration.ofHours(2)));
            cn.putSession(session);
            cnTurnsReadOnlyWithReplicationBehind();
            assertThat(eu.session("t-alice").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
            ReadinessResult<Session> result = inEu.sessions().read(new SessionRef("alice", "t-alice"));
            assertThat(result.outcome()).isEqualTo(ReadinessResult.Outcome.HOME);
            assertThat(result.value()).isEqualTo(session);
        }
    }

    @Nested
    @DisplayName("2. an order accepted in cn is retried with the same Idempotency-Key and lands in eu")
    class OrderRetriedInEu {

        static final String KEY = "9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d";
        final String payload = Idempotency.payloadHash("{\"item\":\"book\",\"quantity\":1}");
        final AtomicInteger orderIds = new AtomicInteger();

        StoredResponse placeOrderIn(RegionalStore store) {
            String id = "o-" + orderIds.incrementAndGet();
            store.putOrder(new Order(id, "alice", KEY, "book x1", clock.instant()));
            return new StoredResponse(201, "{\"order\":\"" + id + "\"}");
        }

        Set<String> orderIdsEverywhere() {
            Set<String> ids = new HashSet<>();
            for (RegionalStore store : regions.all()) {
                store.orders("alice").value().forEach(o -> ids.add(o.orderId()));
            }
            return ids;
        }

        IdempotencyResult acceptedInCn() {
            Idempotency inCn = Idempotency.builder().region(CN).homes(homes).stores(regions.idempotencyStores()).clock(clock).build();
            return inCn.execute(KEY, "alice", payload, () -> placeOrderIn(cn));
        }

        @Test
        void localOnlyLookupInEu_findsNoRecord_soANaiveRetryWouldChargeTwice() {
            acceptedInCn();
            cnTurnsReadOnlyWithReplicationBehind();
            assertThat(eu.idempotencyRecord(KEY).status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        }

        @Test
        void retryInEu_resolvesTheHomeFirst_replaysTheFirstResponse_andMakesNoSecondOrder() {
            IdempotencyResult first = acceptedInCn();
            cnTurnsReadOnlyWithReplicationBehind();

            Idempotency inEu = Idempotency.builder().region(servedIn).homes(homes).stores(regions.idempotencyStores()).clock(clock).build();
            IdempotencyResult retry = inEu.execute(KEY, "alice", payload, () -> placeOrderIn(eu));

            assertThat(retry.outcome()).isEqualTo(IdempotencyResult.Outcome.REPLAYED);
            assertThat(retry.response()).isEqualTo(first.response());
            replicationCatchesUp();
            assertThat(orderIdsEverywhere()).containsExactly("o-1");
        }

        @Test
        void retryInEu_withCnUnreachable_replaysFromEusReplica_orWaitsWhenThereIsNone() {
            IdempotencyResult first = acceptedInCn();
            clock.advance(Duration.ofSeconds(1));
            replicator.replicateDue();
            cn.mode(StoreMode.UNAVAILABLE);
            Idempotency inEu = Idempotency.builder().region(servedIn).homes(homes).stores(regions.idempotencyStores()).clock(clock).build();

            assertThat(inEu.execute(KEY, "alice", payload, () -> placeOrderIn(eu)).response())
                    .isEqualTo(first.response());
            IdempotencyResult unknownKey = inEu.execute("other-key", "alice", payload, () -> placeOrderIn(eu));
            assertThat(unknownKey.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
            cn.mode(StoreMode.READ_WRITE);
            replicationCatchesUp();
            assertThat(orderIdsEverywhere()).containsExactly("o-1");
        }
    }

    @Nested
    @DisplayName("3. a cart written in cn and in eu during the failover")
    class CartWrittenInBothRegions {

        @Test
        void overwritingWithEusCart_wouldLoseTheItemAcknowledgedInCn() {
            cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
            replicator.pause(CN, EU);
            StoreResult<Cart> inEu = eu.updateCart("alice", (c, replica) -> c.add(replica, "cup", 1));
            assertThat(inEu.value().items()).doesNotContainKey("book");
        }

        @Test
        void readinessInEu_showsBothRegionsItemsBeforeReplicationCatchesUp() {
            cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
            cnTurnsReadOnlyWithReplicationBehind();
            eu.updateCart("alice", (c, replica) -> c.add(replica, "cup", 1));
            ShopData inEu = ShopData.of(servedIn, stores, homes, clock);
            assertThat(inEu.carts().read("alice").value().items()).containsOnlyKeys("book", "cup");
        }

        @Test
        void replicationMergesBothCarts_andNoAcknowledgedItemIsLost() {
            cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
            clock.advance(Duration.ofSeconds(1));
            replicator.replicateDue();
            replicator.pause(CN, EU);

            // The tail of cn's traffic (long connections) and eu's new traffic write the same cart concurrently.
            cn.updateCart("alice", (c, replica) -> c.add(replica, "pen", 3));
            eu.updateCart("alice", (c, replica) -> c.add(replica, "cup", 1).remove("book"));
            replicator.replicateDue();
            replicationCatchesUp();

            for (RegionalStore store : regions.all()) {
                assertThat(store.cart("alice").value().items()).as("cart in %s", store.region())
                        .containsOnlyKeys("pen", "cup");
            }
            assertThat(cn.cart("alice")).isEqualTo(eu.cart("alice")).isEqualTo(us.cart("alice"));
        }
    }
}
