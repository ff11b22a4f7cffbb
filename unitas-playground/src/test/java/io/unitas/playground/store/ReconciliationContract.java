package io.unitas.playground.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.unitas.core.Region;
import io.unitas.data.Home;
import io.unitas.data.reconcile.Compensation;
import io.unitas.data.reconcile.Conflict;
import io.unitas.data.reconcile.Reconciliations;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoredResponse;
import io.unitas.playground.FakeClock;
import io.unitas.playground.replication.Replicator;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * cn's unit is promoted to eu while cn's replication is paused; cn had acknowledged an order, a cart item, a new
 * account and an account change that never shipped. When cn returns, they are reconciled in eu, never written over
 * it: the order that eu placed again under the same Idempotency-Key is detected and cn's is refunded, the cart
 * merges, the new account is adopted and the changed one is a listed conflict; every region ends with the same
 * orders and refunds. The same on every store (embedded, PostgreSQL).
 */
abstract class ReconciliationContract {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");
    static final Region US = Region.of("us");
    static final String UNIT = "u-cn";

    final FakeClock clock = new FakeClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Map<String, Region> live = new ConcurrentHashMap<>(Map.of(UNIT, CN));
    RegionalStore cn;
    RegionalStore eu;
    RegionalStore us;
    private final List<RegionalStore> opened = new ArrayList<>();

    abstract RegionalStore newStore(Region region, FakeClock clock);

    @BeforeEach
    void open() {
        cn = track(newStore(CN, clock));
        eu = track(newStore(EU, clock));
        us = track(newStore(US, clock));
    }

    @AfterEach
    void close() {
        opened.forEach(RegionalStore::close);
    }

    private RegionalStore track(RegionalStore store) {
        opened.add(store);
        return store;
    }

    /** Every user in cn's unit, wherever it lives now. */
    private ShopReconciler reconciler() {
        return new ShopReconciler(() -> Map.copyOf(live), key -> Home.of(key, UNIT, live.get(UNIT)), clock,
                                  registry);
    }

    private Replicator replicator(ChangeReconciler reconciler) {
        return Replicator.builder().stores(cn, eu, us).clock(clock).delay(Duration.ZERO).reconciler(reconciler)
                         .build();
    }

    /** A checkout as the shop does it: the key's record claimed, the order placed, the record completed. */
    private static void checkout(RegionalStore store, String user, String key, String orderId, Instant at) {
        assertThat(store.claim(IdempotencyRecord.inFlight(key, user, "hash-" + key, at, at.plus(Duration.ofHours(1))))
                        .isOk()).isTrue();
        assertThat(store.putOrder(new Order(orderId, user, key, "{\"items\":{\"cup\":1}}", at)).isOk()).isTrue();
        assertThat(store.complete(key, new StoredResponse(201, "{\"order\":\"" + orderId + "\"}")).isOk()).isTrue();
    }

    /** The history both tests share, up to cn's return: what cn did not ship, the promotion, what eu did after. */
    private void promotionWithUnshippedChanges(Replicator replicator) {
        cn.putAccount(new Account("alice", UNIT, CN, "Alice", clock.instant()));
        cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
        round(replicator);

        replicator.pause(CN, EU);
        replicator.pause(CN, US);
        checkout(cn, "alice", "key-1", "order-cn", clock.instant());          // acknowledged, response lost
        checkout(cn, "alice", "key-2", "order-cn-2", clock.instant());        // acknowledged, never sent again
        cn.updateCart("alice", (c, replica) -> c.add(replica, "cup", 1));
        cn.putAccount(new Account("bob", UNIT, CN, "Bob", clock.instant()));     // registered, never shipped
        cn.putAccount(new Account("alice", UNIT, CN, "Alice Liddell", clock.instant()));
        cn.mode(StoreMode.READ_ONLY);
        round(replicator);

        live.put(UNIT, EU);                                                    // promoted: cn cannot ship
        round(replicator);
        checkout(eu, "alice", "key-1", "order-eu", clock.instant());          // the client sent key-1 again
        eu.updateCart("alice", (c, replica) -> c.add(replica, "desk", 1));
        eu.putAccount(new Account("alice", UNIT, EU, "Alice L.", clock.instant()));
        round(replicator);

        cn.mode(StoreMode.READ_WRITE);                                         // cn returns
        replicator.resume(CN, EU);
        replicator.resume(CN, US);
        for (int i = 0; i < 4; i++) {
            round(replicator);
        }
        assertThat(replicator.links()).allSatisfy(link -> assertThat(link.caughtUp()).as(link.toString()).isTrue());
    }

    private void round(Replicator replicator) {
        clock.advance(Duration.ofMillis(100));
        replicator.replicateDue();
    }

    @Test
    void theOldHomesUnshippedChanges_areReconciledInTheNewHome_neverWrittenOverIt() {
        ShopReconciler reconciler = reconciler();
        try (Replicator replicator = replicator(reconciler)) {
            promotionWithUnshippedChanges(replicator);
        }

        Reconciliations.Report report = reconciler.report();
        assertThat(report.duplicatesDetected()).isEqualTo(1);
        assertThat(report.compensated()).isEqualTo(1);
        assertThat(report.conflicts()).isEqualTo(1);
        assertThat(report.merged()).isEqualTo(1);
        for (RegionalStore store : List.of(cn, eu, us)) {
            assertThat(orderIds(store, "alice")).as(store.region() + " orders")
                    .containsExactly("order-cn", "order-cn-2", "order-eu");
            assertThat(store.compensations("alice").value()).as(store.region() + " refunds")
                    .extracting(Compensation::duplicateId, Compensation::keptId)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("order-cn", "order-eu"));
            assertThat(store.cart("alice").value().items().keySet()).as(store.region() + " cart")
                    .containsExactlyInAnyOrder("book", "cup", "desk");
            assertThat(store.account("bob").isOk()).as(store.region() + " bob").isTrue();
        }
        assertThat(uncompensatedDuplicates("alice")).isZero();
        assertThat(eu.account("alice").value().name()).as("the new home's version stands").isEqualTo("Alice L.");
        assertThat(us.account("alice").value().name()).isEqualTo("Alice L.");
        assertThat(eu.idempotencyRecord("key-1").value().response().body()).contains("order-eu");
        assertThat(eu.idempotencyRecord("key-2").value().inFlight()).as("cn's claim and its completion adopted")
                                                            .isFalse();
        assertThat(eu.idempotencyRecord("key-2").value().response().body()).contains("order-cn-2");
        List<Conflict> conflicts = eu.conflicts().value();
        assertThat(conflicts).hasSize(1);
        assertThat(conflicts.get(0).kind()).isEqualTo("ACCOUNT");
        assertThat(conflicts.get(0).key()).isEqualTo("alice");
        assertThat(conflicts.get(0).detail()).contains("Alice Liddell").contains("Alice L.");

        // what operators see: the open conflict by kind, the refund counted, a reason naming the unit and key
        assertThat(registry.get("unitas.data.reconcile.conflicts.open").tag("kind", "ACCOUNT").gauge().value())
                .isEqualTo(1.0);
        assertThat(registry.get("unitas.data.reconcile.duplicates.compensated").counter().count()).isEqualTo(1.0);
        assertThat(reconciler.status().reason()).contains("1 reconciliation conflict open",
                                                          "unit " + UNIT + " ACCOUNT alice");
    }

    @Test
    void withoutReconciliation_theOldHomesOrderLandsAsAnUncompensatedDuplicate_andItsAccountOverwritesTheNewHomes() {
        try (Replicator replicator = replicator(ChangeReconciler.ORDINARY)) {
            promotionWithUnshippedChanges(replicator);
        }

        assertThat(uncompensatedDuplicates("alice")).isEqualTo(1);
        assertThat(eu.account("alice").value().name()).isEqualTo("Alice Liddell");
    }

    /** Idempotency keys of {@code user} with more than one order that no region's store has refunded. */
    private long uncompensatedDuplicates(String user) {
        Map<String, Set<String>> byKey = new HashMap<>();
        Set<String> refunded = new HashSet<>();
        for (RegionalStore store : List.of(cn, eu, us)) {
            store.orders(user).value().forEach(o -> byKey.computeIfAbsent(o.idempotencyKey(), k -> new HashSet<>())
                                                         .add(o.orderId()));
            store.compensations(user).value().forEach(c -> refunded.add(c.duplicateId()));
        }
        return byKey.values().stream().filter(ids -> ids.stream().filter(id -> !refunded.contains(id)).count() > 1)
                    .count();
    }

    private static List<String> orderIds(RegionalStore store, String user) {
        return store.orders(user).value().stream().map(Order::orderId).sorted().toList();
    }
}
