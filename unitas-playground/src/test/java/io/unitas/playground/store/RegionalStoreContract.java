package io.unitas.playground.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.playground.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What every {@link RegionalStore} does, whatever database holds it. */
abstract class RegionalStoreContract {

    static final Region CN = Region.of("cn");
    static final Region EU = Region.of("eu");

    final FakeClock clock = new FakeClock();
    final List<RegionalStore> opened = new ArrayList<>();
    RegionalStore cn;

    /** A fresh, empty store of {@code region}. */
    abstract RegionalStore newStore(Region region, FakeClock clock);

    @BeforeEach
    void openStore() {
        cn = open(CN);
    }

    @AfterEach
    void closeStores() {
        opened.forEach(RegionalStore::close);
    }

    RegionalStore open(Region region) {
        RegionalStore store = newStore(region, clock);
        opened.add(store);
        return store;
    }

    Account alice() {
        return new Account("alice", "u-cn-1", CN, "Alice", clock.instant());
    }

    @Test
    void account_writtenThenRead_isTheSame() {
        assertThat(cn.putAccount(alice()).isOk()).isTrue();
        assertThat(cn.account("alice")).isEqualTo(StoreResult.ok(alice()));
    }

    @Test
    void account_neverWritten_isNotFoundNamingRegionAndKey() {
        StoreResult<Account> result = cn.account("bob");
        assertThat(result.status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(result.detail()).isEqualTo("cn: no account 'bob'");
    }

    @Test
    void replicaId_isTheRegionAndAnIncarnationOfItsData() {
        assertThat(cn.replicaId()).matches("cn\\.[0-9a-f]{8}");
        assertThat(open(CN).replicaId()).as("a new database, a new incarnation").isNotEqualTo(cn.replicaId());
        cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
        assertThat(cn.cart("alice").value().state().context().counters()).containsOnlyKeys(cn.replicaId());
    }

    @Test
    void readOnly_refusesEveryWrite_keepsReads_andLeavesDataIntact() {
        cn.putAccount(alice());
        cn.mode(StoreMode.READ_ONLY);

        assertThat(cn.putAccount(new Account("alice", "u-cn-1", CN, "Changed", clock.instant())).status())
                .isEqualTo(StoreResult.Status.READ_ONLY);
        assertThat(cn.putSession(new Session("t1", "alice", clock.instant().plusSeconds(60))).status())
                .isEqualTo(StoreResult.Status.READ_ONLY);
        assertThat(cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1)).detail()).isEqualTo("cn: store is read-only");
        assertThat(cn.account("alice")).isEqualTo(StoreResult.ok(alice()));
        assertThat(cn.changesSince(0, 10).value()).hasSize(1);

        cn.mode(StoreMode.READ_WRITE);
        assertThat(cn.putSession(new Session("t1", "alice", clock.instant().plusSeconds(60))).isOk()).isTrue();
    }

    @Test
    void unavailable_answersUnavailableToReadsAndWrites() {
        cn.putAccount(alice());
        cn.mode(StoreMode.UNAVAILABLE);
        assertThat(cn.account("alice").status()).isEqualTo(StoreResult.Status.UNAVAILABLE);
        assertThat(cn.putAccount(alice()).status()).isEqualTo(StoreResult.Status.UNAVAILABLE);
        assertThat(cn.changesSince(0, 10).status()).isEqualTo(StoreResult.Status.UNAVAILABLE);
    }

    @Test
    void session_isFoundUntilItExpires() {
        cn.putSession(new Session("t1", "alice", clock.instant().plusSeconds(60)));
        assertThat(cn.session("t1").isOk()).isTrue();
        clock.advance(Duration.ofSeconds(60));
        assertThat(cn.session("t1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
    }

    @Test
    void claim_ofATakenKey_conflictsWithTheStoredRecord() {
        IdempotencyRecord first = inFlight("k1", "hash-a");
        assertThat(cn.claim(first)).isEqualTo(StoreResult.ok(first));
        StoreResult<IdempotencyRecord> second = cn.claim(inFlight("k1", "hash-b"));
        assertThat(second.status()).isEqualTo(StoreResult.Status.CONFLICT);
        assertThat(second.value()).isEqualTo(first);
    }

    @Test
    void claim_ofAnExpiredKey_replacesIt() {
        cn.claim(inFlight("k1", "hash-a"));
        clock.advance(Duration.ofHours(1));
        assertThat(cn.idempotencyRecord("k1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        IdempotencyRecord again = inFlight("k1", "hash-b");
        assertThat(cn.claim(again)).isEqualTo(StoreResult.ok(again));
    }

    @Test
    void complete_storesTheResponse_andRelease_freesTheKey() {
        cn.claim(inFlight("k1", "hash-a"));
        StoredResponse response = new StoredResponse(201, "{\"order\":\"o-1\"}");
        assertThat(cn.complete("k1", response).value().response()).isEqualTo(response);
        assertThat(cn.idempotencyRecord("k1").value().inFlight()).isFalse();
        assertThat(cn.complete("k2", response).status()).isEqualTo(StoreResult.Status.NOT_FOUND);

        assertThat(cn.release("k1").isOk()).isTrue();
        assertThat(cn.idempotencyRecord("k1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
    }

    @Test
    void order_withATakenId_conflicts_andOrdersListOldestFirst() {
        Order first = new Order("o-2", "alice", "k1", "book x1", clock.instant());
        clock.advance(Duration.ofSeconds(1));
        Order second = new Order("o-1", "alice", "", "cup x2", clock.instant());
        cn.putOrder(first);
        cn.putOrder(second);
        assertThat(cn.putOrder(new Order("o-2", "bob", "k9", "other", clock.instant())).status()).isEqualTo(StoreResult.Status.CONFLICT);
        assertThat(cn.orders("alice").value()).containsExactly(first, second);
        assertThat(cn.orders("bob").value()).isEmpty();
    }

    @Test
    void cart_updatesConcurrently_loseNoItem() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<StoreResult<Cart>>> writes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String item = "item-" + i;
                writes.add(pool.submit(() -> cn.updateCart("alice", (c, replica) -> c.add(replica, item, 1))));
            }
            for (Future<StoreResult<Cart>> write : writes) {
                assertThat(write.get().isOk()).isTrue();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(cn.cart("alice").value().items()).hasSize(20);
        assertThat(cn.cart("bob").value()).isEqualTo(Cart.empty());
    }

    @Test
    void changeLog_keepsEveryWriteInOrder_withOriginSequenceAndWriteTime() {
        cn.putAccount(alice());
        clock.advance(Duration.ofMillis(5));
        cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
        cn.claim(inFlight("k1", "hash-a"));
        cn.claim(inFlight("k1", "hash-b")); // conflicts: not a write
        cn.mode(StoreMode.READ_ONLY);
        cn.putAccount(alice()); // refused: not a write

        List<Change> changes = cn.changesSince(0, 10).value();
        assertThat(changes).extracting(Change::seq).containsExactly(1L, 2L, 3L);
        assertThat(changes).extracting(Change::kind)
                           .containsExactly(Change.Kind.ACCOUNT, Change.Kind.CART, Change.Kind.IDEMPOTENCY);
        assertThat(changes).allSatisfy(c -> assertThat(c.origin()).isEqualTo(CN));
        assertThat(changes.get(1).writtenAt()).isEqualTo(changes.get(0).writtenAt().plusMillis(5));
        assertThat(cn.changesSince(2, 10).value()).extracting(Change::seq).containsExactly(3L);
        assertThat(cn.changesSince(0, 1).value()).hasSize(1);
    }

    @Test
    void apply_copiesEveryKindOnce_inOrder_evenWhileReadOnly() {
        RegionalStore eu = open(EU);
        cn.putAccount(alice());
        cn.putSession(new Session("t1", "alice", clock.instant().plusSeconds(60)));
        cn.claim(inFlight("k1", "hash-a"));
        cn.complete("k1", new StoredResponse(201, "o-1"));
        cn.putOrder(new Order("o-1", "alice", "k1", "book x1", clock.instant()));
        cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
        cn.claim(inFlight("k2", "hash-b"));
        cn.release("k2");
        eu.mode(StoreMode.READ_ONLY);

        List<Change> changes = cn.changesSince(0, 100).value();
        for (Change change : changes) {
            assertThat(eu.apply(change)).isEqualTo(StoreResult.ok(true));
        }
        assertThat(eu.apply(changes.get(0))).isEqualTo(StoreResult.ok(false));
        assertThat(eu.appliedSeq(cn.replicaId()).value()).isEqualTo(changes.size());

        assertThat(eu.account("alice")).isEqualTo(cn.account("alice"));
        assertThat(eu.session("t1")).isEqualTo(cn.session("t1"));
        assertThat(eu.idempotencyRecord("k1")).isEqualTo(cn.idempotencyRecord("k1"));
        assertThat(eu.idempotencyRecord("k2").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(eu.orders("alice")).isEqualTo(cn.orders("alice"));
        assertThat(eu.cart("alice")).isEqualTo(cn.cart("alice"));
        assertThat(eu.changesSince(0, 10).value()).as("applied changes are not logged again").isEmpty();
    }

    @Test
    void apply_ofACart_mergesWithTheLocalCart() {
        RegionalStore eu = open(EU);
        cn.updateCart("alice", (c, replica) -> c.add(replica, "book", 1));
        eu.updateCart("alice", (c, replica) -> c.add(replica, "cup", 2));
        eu.apply(cn.changesSince(0, 10).value().get(0));
        assertThat(eu.cart("alice").value().items()).containsOnlyKeys("book", "cup");
    }

    @Test
    void apply_outOfOrder_isRejected() {
        RegionalStore eu = open(EU);
        cn.putAccount(alice());
        cn.putAccount(alice());
        Change second = cn.changesSince(1, 10).value().get(0);
        assertThatThrownBy(() -> eu.apply(second)).hasMessage(
                "change " + cn.replicaId() + "#2: out of order (expected: " + cn.replicaId() + "#1)");
    }

    @Test
    void trim_dropsShippedChangesButTheNewest_andExpiredRows_andSequencesCountOn() {
        cn.putAccount(alice());                                                        // seq 1
        cn.putSession(new Session("short", "alice", clock.instant().plusSeconds(1)));   // seq 2
        cn.putSession(new Session("long", "alice", clock.instant().plusSeconds(3600))); // seq 3
        cn.claim(IdempotencyRecord.inFlight("k1", "alice", "h", clock.instant(),
                                            clock.instant().plusSeconds(1)));           // seq 4
        clock.advance(Duration.ofSeconds(2));

        assertThat(cn.trim(2)).isEqualTo(StoreResult.ok(2 + 1 + 1));
        assertThat(cn.changesSince(0, 10).value()).extracting(Change::seq).containsExactly(3L, 4L);
        assertThat(cn.session("long").isOk()).isTrue();

        assertThat(cn.trim(99)).as("the newest change stays").isEqualTo(StoreResult.ok(1));
        assertThat(cn.changesSince(0, 10).value()).extracting(Change::seq).containsExactly(4L);
        cn.putAccount(new Account("bob", "u-cn-2", CN, "Bob", clock.instant()));
        assertThat(cn.changesSince(0, 10).value()).extracting(Change::seq).containsExactly(4L, 5L);
    }

    IdempotencyRecord inFlight(String key, String hash) {
        return IdempotencyRecord.inFlight(key, "alice", hash, clock.instant(), clock.instant().plus(Duration.ofHours(1)));
    }
}
