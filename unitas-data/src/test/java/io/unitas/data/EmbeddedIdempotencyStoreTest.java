package io.unitas.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class EmbeddedIdempotencyStoreTest {

    static final Region CN = Region.of("cn");

    final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    final IdempotencyStore store = IdempotencyStore.embedded(CN, clock);

    IdempotencyRecord inFlight(String key, String owner) {
        return IdempotencyRecord.inFlight(key, owner, "f", clock.instant(), clock.instant().plus(Duration.ofHours(1)));
    }

    @Test
    void claim_thenComplete_thenRead_returnsTheStoredResponse() {
        assertThat(store.claim(inFlight("k1", "alice")).status()).isEqualTo(StoreResult.Status.OK);
        assertThat(store.idempotencyRecord("k1").value().inFlight()).isTrue();
        StoredResponse response = new StoredResponse(201, "{\"id\":1}");
        assertThat(store.complete("k1", response).value().response()).isEqualTo(response);
        assertThat(store.idempotencyRecord("k1").value().response()).isEqualTo(response);
    }

    @Test
    void secondClaim_isAConflictCarryingTheFirstRecord() {
        store.claim(inFlight("k1", "alice"));
        StoreResult<IdempotencyRecord> second = store.claim(inFlight("k1", "mallory"));
        assertThat(second.status()).isEqualTo(StoreResult.Status.CONFLICT);
        assertThat(second.value().userId()).isEqualTo("alice");
        assertThat(second.detail()).isEqualTo("cn: idempotency key 'k1' already exists");
    }

    @Test
    void expiredRecord_readsAsAbsent_andCanBeClaimedAgain() {
        store.claim(inFlight("k1", "alice"));
        clock.advance(Duration.ofHours(1));
        assertThat(store.idempotencyRecord("k1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(store.claim(inFlight("k1", "bob")).status()).isEqualTo(StoreResult.Status.OK);
        assertThat(store.idempotencyRecord("k1").value().userId()).isEqualTo("bob");
    }

    @Test
    void release_freesTheKey() {
        store.claim(inFlight("k1", "alice"));
        assertThat(store.release("k1").value()).isEqualTo("k1");
        assertThat(store.idempotencyRecord("k1").status()).isEqualTo(StoreResult.Status.NOT_FOUND);
        assertThat(store.claim(inFlight("k1", "alice")).status()).isEqualTo(StoreResult.Status.OK);
    }

    @Test
    void completeWithoutAClaim_isNotFound() {
        assertThat(store.complete("k9", new StoredResponse(200, "")).detail())
                .isEqualTo("cn: no idempotency record 'k9'");
    }

    @Test
    void claimOfACompletedRecord_isAProgrammingError() {
        IdempotencyRecord done = inFlight("k1", "alice").completed(new StoredResponse(200, ""));
        assertThatThrownBy(() -> store.claim(done)).hasMessage("record of k1: completed (expected: in flight)");
    }

    @Test
    void concurrentClaimsOfOneKey_exactlyOneWins() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Callable<StoreResult<IdempotencyRecord>>> claims = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                String owner = "user-" + i;
                claims.add(() -> store.claim(inFlight("k1", owner)));
            }
            long won = 0;
            for (Future<StoreResult<IdempotencyRecord>> f : pool.invokeAll(claims)) {
                StoreResult<IdempotencyRecord> r = f.get();
                assertThat(r.status()).isIn(StoreResult.Status.OK, StoreResult.Status.CONFLICT);
                won += r.isOk() ? 1 : 0;
            }
            assertThat(won).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
