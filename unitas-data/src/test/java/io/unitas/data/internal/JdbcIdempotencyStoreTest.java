package io.unitas.data.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.core.Region;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoreResult.Status;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;
import io.unitas.testkit.SqlServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** Idempotency records on a real PostgreSQL: atomic claims under races, and a read-only or unreachable database. */
class JdbcIdempotencyStoreTest {

    private static final Region CN = Region.of("cn");
    private static final SqlServer PG = PostgresCluster.shared().primary();

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final String database = "unitas_idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final PGSimpleDataSource dataSource = new PGSimpleDataSource();
    private final JdbcIdempotencyStore store;

    JdbcIdempotencyStoreTest() {
        PG.execute("CREATE DATABASE " + database);
        dataSource.setUrl("jdbc:postgresql://127.0.0.1:" + PG.port() + "/" + database);
        dataSource.setUser("postgres");
        store = new JdbcIdempotencyStore(CN, dataSource, clock);
    }

    @AfterEach
    void drop() {
        PG.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    @Test
    void aClaimedKey_isHeld_thenCompleted_thenReplayedAsStored() {
        assertThat(store.claim(record("k-1", "hash-a")).status()).isEqualTo(Status.OK);

        StoreResult<IdempotencyRecord> second = store.claim(record("k-1", "hash-a"));
        assertThat(second.status()).isEqualTo(Status.CONFLICT);
        assertThat(second.value().inFlight()).isTrue();

        StoreResult<IdempotencyRecord> completed = store.complete("k-1", new StoredResponse(201, "{\"id\":1}"));
        assertThat(completed.value().response()).isEqualTo(new StoredResponse(201, "{\"id\":1}"));
        assertThat(store.idempotencyRecord("k-1").value()).isEqualTo(completed.value());
        assertThat(store.claim(record("k-1", "hash-a")).value().response().status()).isEqualTo(201);
    }

    @Test
    void anExpiredRecord_isNotFound_andCanBeClaimedAgain() {
        store.claim(record("k-1", "hash-a"));
        clock.advance(Duration.ofHours(25));

        assertThat(store.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        StoreResult<IdempotencyRecord> reclaimed = store.claim(record("k-1", "hash-b"));

        assertThat(reclaimed.status()).isEqualTo(Status.OK);
        assertThat(store.idempotencyRecord("k-1").value().payloadHash()).isEqualTo("hash-b");
    }

    @Test
    void aReleasedKey_canBeClaimedAgain_andCompletingAnUnknownKeyIsNotFound() {
        store.claim(record("k-1", "hash-a"));

        assertThat(store.release("k-1")).isEqualTo(StoreResult.ok("k-1"));
        assertThat(store.release("k-1").isOk()).as("absent: still OK").isTrue();

        assertThat(store.claim(record("k-1", "hash-a")).status()).isEqualTo(Status.OK);
        assertThat(store.complete("k-2", new StoredResponse(200, "")).status()).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void twoThreadsClaimingOneKey_oneWins_theOtherSeesItsRecord() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 20; round++) {
                String key = "race-" + round;
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<StoreResult<IdempotencyRecord>>> claims = new ArrayList<>();
                for (String hash : List.of("hash-a", "hash-b")) {
                    claims.add(threads.submit(() -> {
                        start.await();
                        return store.claim(record(key, hash));
                    }));
                }
                StoreResult<IdempotencyRecord> a = claims.get(0).get();
                StoreResult<IdempotencyRecord> b = claims.get(1).get();

                assertThat(List.of(a.status(), b.status())).as(key)
                        .containsExactlyInAnyOrder(Status.OK, Status.CONFLICT);
                StoreResult<IdempotencyRecord> winner = a.isOk() ? a : b;
                StoreResult<IdempotencyRecord> loser = a.isOk() ? b : a;
                assertThat(loser.value().payloadHash()).as(key).isEqualTo(winner.value().payloadHash());
            }
        } finally {
            threads.shutdown();
        }
    }

    @Test
    void twoThreadsReclaimingOneExpiredKey_oneWins() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 10; round++) {
                String key = "expired-" + round;
                store.claim(record(key, "old"));
                clock.advance(Duration.ofHours(25));
                CyclicBarrier start = new CyclicBarrier(2);
                List<Future<StoreResult<IdempotencyRecord>>> claims = new ArrayList<>();
                for (String hash : List.of("hash-a", "hash-b")) {
                    claims.add(threads.submit(() -> {
                        start.await();
                        return store.claim(record(key, hash));
                    }));
                }

                assertThat(List.of(claims.get(0).get().status(), claims.get(1).get().status())).as(key)
                        .containsExactlyInAnyOrder(Status.OK, Status.CONFLICT);
            }
        } finally {
            threads.shutdown();
        }
    }

    @Test
    void aReadOnlyDatabase_refusesClaimsAsReadOnly_andStillAnswersReads() {
        store.claim(record("k-1", "hash-a"));
        PG.execute("ALTER DATABASE " + database + " SET default_transaction_read_only = on");

        assertThat(store.claim(record("k-2", "hash-a")).status()).isEqualTo(Status.READ_ONLY);
        assertThat(store.complete("k-1", new StoredResponse(200, "")).status()).isEqualTo(Status.READ_ONLY);
        assertThat(store.release("k-1").status()).isEqualTo(Status.READ_ONLY);
        assertThat(store.idempotencyRecord("k-1").status()).isEqualTo(Status.OK);
        assertThat(store.claim(record("k-1", "hash-a")).status()).as("held: a retry still sees its record")
                .isEqualTo(Status.CONFLICT);
    }

    @Test
    void anUnreachableDatabase_isUnavailable_namingTheRegion() {
        dataSource.setPortNumbers(new int[] {Ports.free()});

        StoreResult<IdempotencyRecord> claim = store.claim(record("k-1", "hash-a"));

        assertThat(claim.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(claim.detail()).startsWith("cn: store is unavailable");
        assertThat(store.idempotencyRecord("k-1").status()).isEqualTo(Status.UNAVAILABLE);
    }

    @Test
    void theSameSqlRunsOnH2_theEmbeddedDefault() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:unitas-idem-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        JdbcIdempotencyStore embedded = new JdbcIdempotencyStore(CN, h2, clock);

        assertThat(embedded.claim(record("k-1", "hash-a")).status()).isEqualTo(Status.OK);
        assertThat(embedded.claim(record("k-1", "hash-a")).status()).isEqualTo(Status.CONFLICT);
        assertThat(embedded.complete("k-1", new StoredResponse(200, "ok")).value().response().body())
                .isEqualTo("ok");
        clock.advance(Duration.ofHours(25));
        assertThat(embedded.claim(record("k-1", "hash-b")).status()).isEqualTo(Status.OK);
    }

    private IdempotencyRecord record(String key, String hash) {
        return IdempotencyRecord.inFlight(key, "alice", hash, clock.instant(), clock.instant().plus(Duration.ofHours(24)));
    }
}
