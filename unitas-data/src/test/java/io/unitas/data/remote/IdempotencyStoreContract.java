package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoreResult.Status;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.MutableClock;

/**
 * What every {@link IdempotencyStore} answers, whether it is cn's own database or cn's store reached from eu over
 * the network: the same cases run against each ({@code JdbcIdempotencyStoreContractTest},
 * {@code RemoteIdempotencyStoreContractTest}). Records expire by the clock of the store that keeps them.
 */
abstract class IdempotencyStoreContract {

    static final Region CN = Region.of("cn");
    static final Duration TTL = Duration.ofHours(1);

    final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));

    /** The store under test, keeping its records by {@link #clock}. */
    abstract IdempotencyStore store();

    IdempotencyRecord inFlight(String key, String owner, String fingerprint) {
        return IdempotencyRecord.inFlight(key, owner, fingerprint, clock.instant(), clock.instant().plus(TTL));
    }

    @Test
    void anAbsentKey_isNotFound_namingTheRegion() {
        StoreResult<IdempotencyRecord> r = store().idempotencyRecord("k-absent");

        assertThat(r.status()).isEqualTo(Status.NOT_FOUND);
        assertThat(r.detail()).isEqualTo("cn: no idempotency record 'k-absent'");
    }

    @Test
    void aClaim_isHeldInFlight_andASecondClaimIsAConflictCarryingTheFirst() {
        IdempotencyRecord first = inFlight("k-1", "alice", "hash-a");

        assertThat(store().claim(first)).isEqualTo(StoreResult.ok(first));
        StoreResult<IdempotencyRecord> second = store().claim(inFlight("k-1", "mallory", "hash-b"));

        assertThat(second.status()).isEqualTo(Status.CONFLICT);
        assertThat(second.value()).isEqualTo(first);
        assertThat(second.detail()).isEqualTo("cn: idempotency key 'k-1' already exists");
        assertThat(store().idempotencyRecord("k-1")).isEqualTo(StoreResult.ok(first));
    }

    @Test
    void aCompletedRecord_keepsItsMediaTypeAndHeaders_forAReplay() {
        store().claim(inFlight("k-h", "alice", "hash-a"));
        StoredResponse response = new StoredResponse(201, "{\"order\":\"o-1\"}", "application/json;charset=UTF-8",
                                                     java.util.Map.of("Location", "/orders/o-1"));

        store().complete("k-h", response);

        StoredResponse replayed = store().idempotencyRecord("k-h").value().response();
        assertThat(replayed).isEqualTo(response);
        assertThat(replayed.contentType()).isEqualTo("application/json;charset=UTF-8");
        assertThat(replayed.headers()).containsExactly(java.util.Map.entry("Location", "/orders/o-1"));
    }

    @Test
    void aCompletedRecord_keepsItsResponse_andAClaimOfItIsAConflictWithTheResponse() {
        IdempotencyRecord claimed = inFlight("k-1", "alice", "hash-a");
        store().claim(claimed);
        StoredResponse response = new StoredResponse(201, "{\"order\":\"o-1\",\"note\":\"é \\\"quoted\\\"\"}");

        StoreResult<IdempotencyRecord> completed = store().complete("k-1", response);

        assertThat(completed).isEqualTo(StoreResult.ok(claimed.completed(response)));
        assertThat(store().idempotencyRecord("k-1").value().response()).isEqualTo(response);
        StoreResult<IdempotencyRecord> again = store().claim(inFlight("k-1", "alice", "hash-a"));
        assertThat(again.status()).isEqualTo(Status.CONFLICT);
        assertThat(again.value().response()).isEqualTo(response);
    }

    @Test
    void completingAKeyNobodyClaimed_isNotFound() {
        StoreResult<IdempotencyRecord> r = store().complete("k-9", new StoredResponse(200, ""));

        assertThat(r.status()).isEqualTo(Status.NOT_FOUND);
        assertThat(r.detail()).isEqualTo("cn: no idempotency record 'k-9'");
    }

    @Test
    void anExpiredRecord_readsAsAbsent_andCanBeClaimedAgain() {
        store().claim(inFlight("k-1", "alice", "hash-a"));
        clock.advance(TTL);

        assertThat(store().idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        IdempotencyRecord reclaimed = inFlight("k-1", "bob", "hash-b");
        assertThat(store().claim(reclaimed)).isEqualTo(StoreResult.ok(reclaimed));
        assertThat(store().idempotencyRecord("k-1").value()).isEqualTo(reclaimed);
    }

    @Test
    void aReleasedKey_isFree_andReleasingAnAbsentKeyIsStillOk() {
        store().claim(inFlight("k-1", "alice", "hash-a"));

        assertThat(store().release("k-1")).isEqualTo(StoreResult.ok("k-1"));
        assertThat(store().release("k-1")).isEqualTo(StoreResult.ok("k-1"));
        assertThat(store().idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        assertThat(store().claim(inFlight("k-1", "alice", "hash-a")).status()).isEqualTo(Status.OK);
    }

    @Test
    void keysWithSlashesSpacesAndNonAscii_travelIntact() {
        String key = "a/b c&d=é?#%2F";
        IdempotencyRecord r = inFlight(key, "alice", "hash-a");

        assertThat(store().claim(r)).isEqualTo(StoreResult.ok(r));
        assertThat(store().idempotencyRecord(key).value()).isEqualTo(r);
        assertThat(store().release(key)).isEqualTo(StoreResult.ok(key));
    }

    @Test
    void claimingACompletedRecord_isAProgrammingError() {
        IdempotencyRecord done = inFlight("k-1", "alice", "hash-a").completed(new StoredResponse(200, ""));

        assertThatThrownBy(() -> store().claim(done)).hasMessage("record of k-1: completed (expected: in flight)");
    }

    // ---- a claim token: the same claim sent again (its answer lost) is granted again; any other stays in flight

    IdempotencyRecord inFlight(String key, String owner, String fingerprint, String claimToken) {
        return IdempotencyRecord.inFlight(key, owner, fingerprint, clock.instant(), clock.instant().plus(TTL),
                                          claimToken);
    }

    @Test
    void theSameClaimSentAgain_withItsToken_isGrantedAgain_asTheClaimsOwner() {
        IdempotencyRecord claim = inFlight("k-1", "alice", "hash-a", "token-1");

        assertThat(store().claim(claim)).isEqualTo(StoreResult.ok(claim));
        assertThat(store().claim(claim)).as("the first answer was lost; sent again").isEqualTo(StoreResult.ok(claim));
        assertThat(store().idempotencyRecord("k-1").value()).isEqualTo(claim);
        assertThat(store().idempotencyRecord("k-1").value().claimToken()).isEqualTo("token-1");
    }

    @Test
    void aClaimWithAnotherToken_orNone_isStillTheKeyInFlight() {
        IdempotencyRecord claim = inFlight("k-1", "alice", "hash-a", "token-1");
        store().claim(claim);

        StoreResult<IdempotencyRecord> other = store().claim(inFlight("k-1", "alice", "hash-a", "token-2"));
        StoreResult<IdempotencyRecord> none = store().claim(inFlight("k-1", "alice", "hash-a"));

        assertThat(other.status()).isEqualTo(Status.CONFLICT);
        assertThat(other.value()).isEqualTo(claim);
        assertThat(other.value().inFlight()).isTrue();
        assertThat(none.status()).isEqualTo(Status.CONFLICT);
        assertThat(none.value()).isEqualTo(claim);
    }

    @Test
    void aClaimWithoutToken_isNeverGrantedTwice() {
        store().claim(inFlight("k-1", "alice", "hash-a"));

        assertThat(store().claim(inFlight("k-1", "alice", "hash-a")).status()).isEqualTo(Status.CONFLICT);
    }

    @Test
    void theTokenOfAClaim_withAnotherFingerprint_isNotThatClaim() {
        IdempotencyRecord claim = inFlight("k-1", "alice", "hash-a", "token-1");
        store().claim(claim);

        StoreResult<IdempotencyRecord> reused = store().claim(inFlight("k-1", "alice", "hash-b", "token-1"));

        assertThat(reused.status()).isEqualTo(Status.CONFLICT);
        assertThat(reused.value()).isEqualTo(claim);
    }

    @Test
    void theSameClaimSentAgain_afterItCompleted_isAConflictCarryingTheResponse() {
        IdempotencyRecord claim = inFlight("k-1", "alice", "hash-a", "token-1");
        store().claim(claim);
        StoredResponse response = new StoredResponse(201, "{\"order\":\"o-1\"}");
        store().complete("k-1", response);

        StoreResult<IdempotencyRecord> again = store().claim(claim);

        assertThat(again.status()).as("replayed, never run twice").isEqualTo(Status.CONFLICT);
        assertThat(again.value()).isEqualTo(claim.completed(response));
    }

    @Test
    void aTokenWhoseRecordExpiredAndWasTakenByAnother_isNoLongerTheOwner() {
        IdempotencyRecord first = inFlight("k-1", "alice", "hash-a", "token-1");
        store().claim(first);
        clock.advance(TTL);
        IdempotencyRecord second = inFlight("k-1", "alice", "hash-a", "token-2");
        assertThat(store().claim(second)).isEqualTo(StoreResult.ok(second));

        StoreResult<IdempotencyRecord> late = store().claim(first);

        assertThat(late.status()).isEqualTo(Status.CONFLICT);
        assertThat(late.value()).isEqualTo(second);
    }

    @Test
    void concurrentClaimsOfOneKey_exactlyOneWins_andTheOthersSeeItsRecord() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 5; round++) {
                String key = "race-" + round;
                List<Callable<StoreResult<IdempotencyRecord>>> claims = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    String owner = "user-" + i;
                    claims.add(() -> store().claim(inFlight(key, owner, "hash-" + owner)));
                }
                List<StoreResult<IdempotencyRecord>> results = new ArrayList<>();
                for (Future<StoreResult<IdempotencyRecord>> f : pool.invokeAll(claims)) {
                    results.add(f.get());
                }
                List<StoreResult<IdempotencyRecord>> won = results.stream().filter(StoreResult::isOk).toList();
                assertThat(won).as(key).hasSize(1);
                assertThat(results).as(key).allSatisfy(r -> {
                    assertThat(r.status()).isIn(Status.OK, Status.CONFLICT);
                    assertThat(r.value()).isEqualTo(won.get(0).value());
                });
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
