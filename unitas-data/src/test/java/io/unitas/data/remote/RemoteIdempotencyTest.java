package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.unitas.core.Region;
import io.unitas.data.DataProblem;
import io.unitas.data.Home;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.IdempotencyStore;
import io.unitas.data.store.IdempotencyRecord;
import io.unitas.data.store.StoreResult;
import io.unitas.data.store.StoreResult.Status;
import io.unitas.data.store.StoredResponse;
import io.unitas.testkit.Await;
import io.unitas.testkit.MutableClock;

/**
 * Idempotency records kept in cn and used from eu across a real HTTP/2 hop, and what happens when that hop fails:
 * a stopped or silent home is {@code data-not-ready} within the deadline, a unit cn does not own is refused, a claim
 * is never sent twice, and a claim its caller gave up on is taken back. The client's deadline runs on
 * {@link ManualTimers}; waits below are only for real I/O to happen.
 */
class RemoteIdempotencyTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final String TOKEN = "utk_remote-idempotency-test";
    private static final Duration IO = Duration.ofSeconds(30);
    private static final Duration DEADLINE = Duration.ofMillis(250);
    private static final String FINGERPRINT = Idempotency.fingerprint("POST", "/checkout", "{\"book\":1}");

    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-03T09:00:00Z"));
    private final IdempotencyStore cnStore = IdempotencyStore.embedded(CN, clock);
    private final IdempotencyStore euStore = IdempotencyStore.embedded(EU, clock);
    private final ManualTimers timers = new ManualTimers();
    private final SimpleMeterRegistry cnMeters = new SimpleMeterRegistry();
    private final SimpleMeterRegistry euMeters = new SimpleMeterRegistry();
    private final AtomicLong cnNanos = new AtomicLong();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final AtomicInteger runs = new AtomicInteger();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** cn serving {@code store}'s records for unit u-cn, on a ticker the test moves. */
    private HomeReadServer cn(IdempotencyStore store) {
        HomeReadServer s = HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN).idempotency(store)
                                         .ticker(cnNanos::get).meterRegistry(cnMeters).start();
        open.add(s);
        return s;
    }

    private HomeReadClient eu(URI cn, String token) {
        HomeReadClient c = HomeReadClient.builder().endpoint(CN, cn).token(token).deadline(DEADLINE)
                                         .hedgeAfter(Duration.ofMillis(100)).meterRegistry(euMeters).build(timers);
        open.add(c);
        return c;
    }

    private HomeReadClient eu(URI cn) {
        return eu(cn, TOKEN);
    }

    /** Checkouts served in eu for owners at home in cn's unit u-cn, cn's records reached through {@code client}. */
    private Idempotency checkoutsInEu(HomeReadClient client) {
        return Idempotency.builder().region(EU).homes(owner -> Home.of(owner, "u-cn", CN)).clock(clock)
                          .unitStores((region, unit) -> Optional.of(
                                  region.equals(EU) ? euStore : client.idempotency(region, unit)))
                          .build();
    }

    private StoredResponse placeOrder() {
        return new StoredResponse(201, "{\"order\":\"o-" + runs.incrementAndGet() + "\"}");
    }

    private IdempotencyRecord inFlight(String key) {
        return IdempotencyRecord.inFlight(key, "alice", FINGERPRINT, clock.instant(),
                                          clock.instant().plus(Duration.ofHours(1)));
    }

    private double served(String operation, String outcome) {
        var c = cnMeters.find("unitas.data.home.idempotency.served").tag("operation", operation)
                        .tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    private double calls(String operation, String outcome) {
        var c = euMeters.find("unitas.data.home.idempotency.calls").tag("home", "cn").tag("operation", operation)
                        .tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    private double secondAttempts() {
        return euMeters.find("unitas.data.home.read.second.attempts").counters().stream()
                       .mapToDouble(c -> c.count()).sum();
    }

    // ---- a reachable home: the record lives in cn, whatever region executes

    @Test
    void aCheckoutInEuForACnUser_isRecordedInCnOverTheNetwork_andARetryIsReplayedFromThere() {
        Idempotency checkouts = checkoutsInEu(eu(cn(cnStore).uri()));

        IdempotencyResult first = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);
        IdempotencyResult retry = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);

        assertThat(first.outcome()).isEqualTo(IdempotencyResult.Outcome.EXECUTED);
        assertThat(retry.outcome()).isEqualTo(IdempotencyResult.Outcome.REPLAYED);
        assertThat(retry.response()).isEqualTo(first.response());
        assertThat(runs).hasValue(1);
        assertThat(cnStore.idempotencyRecord("k-1").value().response()).isEqualTo(first.response());
        assertThat(euStore.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        assertThat(served("claim", "ok")).isEqualTo(1);
        assertThat(served("complete", "ok")).isEqualTo(1);
        assertThat(calls("claim", "ok")).isEqualTo(1);
        assertThat(euMeters.find("unitas.data.home.idempotency.duration").tag("operation", "claim").timer().count())
                .isEqualTo(1);
    }

    @Test
    void throughTheNetwork_422And409AreAsAtHome() {
        Idempotency checkouts = checkoutsInEu(eu(cn(cnStore).uri()));
        checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);
        cnStore.claim(inFlight("k-2")); // a first request of k-2 still running in cn

        IdempotencyResult reused = checkouts.execute("k-1", "alice", Idempotency.payloadHash("{}"), this::placeOrder);
        IdempotencyResult inFlight = checkouts.execute("k-2", "alice", FINGERPRINT, this::placeOrder);

        assertThat(reused.problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_REUSED);
        assertThat(inFlight.problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_IN_FLIGHT);
        assertThat(runs).hasValue(1);
    }

    @Test
    void anActionThatFails_releasesTheKeyInCn() {
        Idempotency checkouts = checkoutsInEu(eu(cn(cnStore).uri()));

        try {
            checkouts.execute("k-1", "alice", FINGERPRINT, () -> {
                throw new IllegalStateException("payment service down");
            });
        } catch (IllegalStateException expected) {
            // the action's failure is the caller's
        }

        assertThat(cnStore.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        assertThat(served("release", "ok")).isEqualTo(1);
    }

    @Test
    void aReadOnlyHome_isReadOnlyAcrossTheHop_andANewKeyIsDataNotReady() {
        IdempotencyStore readOnly = new ReadOnly(cnStore);
        Idempotency checkouts = checkoutsInEu(eu(cn(readOnly).uri()));

        IdempotencyResult r = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);

        assertThat(r.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
        assertThat(r.problem().detail()).isEqualTo(
                "idempotency key 'k-1' cannot be recorded in home region cn (cn: store is read-only)");
        assertThat(runs).hasValue(0);
    }

    // ---- refused: a unit cn does not own, a token it does not accept

    @Test
    void aClaimNamingItsUnitTwice_is400NamingIt_andCnsStoreIsNotTouched() throws Exception {
        HomeReadServer cn = cn(cnStore);

        HttpResponse<String> raw = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(cn.uri().resolve(IdempotencyWire.CLAIM + "?unit=u-cn&unit=u-eu&key=k-1"))
                           .header("Authorization", "Bearer " + TOKEN)
                           .POST(HttpRequest.BodyPublishers.ofByteArray(
                                   IdempotencyWire.bytes(IdempotencyWire.record(inFlight("k-1"))))).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(raw.statusCode()).isEqualTo(400);
        assertThat(raw.body()).contains("\"type\":\"urn:unitas:problem:bad-request\"",
                                        "query: unit given 2 times (expected: once)");
        assertThat(cnStore.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        assertThat(served("claim", "bad_request")).isEqualTo(1);
    }

    @Test
    void aUnitCnDoesNotOwn_isRefused421_andCnsStoreIsNotTouched() throws Exception {
        HomeReadServer cn = cn(cnStore);
        IdempotencyStore euUnitAtCn = eu(cn.uri()).idempotency(CN, "u-eu");

        StoreResult<IdempotencyRecord> claim = euUnitAtCn.claim(inFlight("k-1"));
        StoreResult<IdempotencyRecord> read = euUnitAtCn.idempotencyRecord("k-1");

        assertThat(claim.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(claim.detail()).contains("claim of idempotency key 'k-1' of unit u-eu at home region cn",
                                            "not-home-region", "unit u-eu: region cn is not its home now");
        assertThat(read.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(cnStore.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        assertThat(served("claim", "not_home")).isEqualTo(1);
        assertThat(served("record", "not_home")).isEqualTo(1);
        assertThat(calls("claim", "not_home")).isEqualTo(1);
        assertThat(secondAttempts()).as("a refusal is an answer: not retried").isZero();

        HttpResponse<String> raw = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(cn.uri().resolve(IdempotencyWire.CLAIM + "?unit=u-eu&key=k-1"))
                           .header("Authorization", "Bearer " + TOKEN)
                           .POST(HttpRequest.BodyPublishers.ofByteArray(
                                   IdempotencyWire.bytes(IdempotencyWire.record(inFlight("k-1"))))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(raw.statusCode()).isEqualTo(421);
        assertThat(raw.headers().firstValue("content-type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(raw.body()).contains("\"type\":\"urn:unitas:problem:not-home-region\"", "unit u-eu");
        assertThat(cnStore.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void aCopyRead_answersForAnyUnit_vouchingOnlyForWhatCnHolds() throws Exception {
        cnStore.claim(inFlight("k-1"));
        cnStore.complete("k-1", new StoredResponse(201, "o-1"));
        HomeReadClient client = eu(cn(cnStore).uri());

        StoreResult<IdempotencyRecord> held = client.idempotencyRecordCopy(CN, "u-eu", "k-1").toCompletableFuture()
                                                    .get(IO.toSeconds(), TimeUnit.SECONDS);
        StoreResult<IdempotencyRecord> absent = client.idempotencyRecordCopy(CN, "u-eu", "k-2").toCompletableFuture()
                                                      .get(IO.toSeconds(), TimeUnit.SECONDS);

        assertThat(held.value().response()).isEqualTo(new StoredResponse(201, "o-1"));
        assertThat(absent.status()).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void aTokenCnDoesNotAccept_isRejected_andNothingIsRecorded() {
        Idempotency checkouts = checkoutsInEu(eu(cn(cnStore).uri(), "utk_someone-else"));

        IdempotencyResult r = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);

        assertThat(r.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
        assertThat(r.problem().detail()).contains("unauthenticated");
        assertThat(served("record", "unauthenticated")).isEqualTo(1);
        assertThat(calls("record", "rejected")).isEqualTo(1);
        assertThat(runs).hasValue(0);
    }

    // ---- a home that cannot answer: data-not-ready within the deadline; a claim never goes twice

    @Test
    void homeStopped_isDataNotReady_decidedBeforeTheDeadline_andNothingRuns() {
        HomeReadServer cn = cn(cnStore);
        java.net.URI cnUri = cn.uri();
        HomeReadClient client = eu(cnUri);
        Idempotency checkouts = checkoutsInEu(client);
        assertThat(checkouts.execute("k-0", "alice", FINGERPRINT, this::placeOrder).outcome())
                .isEqualTo(IdempotencyResult.Outcome.EXECUTED);

        cn.close();
        IdempotencyResult r = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);
        StoreResult<IdempotencyRecord> claim = client.idempotency(CN, "u-cn").claim(inFlight("k-2"));

        assertThat(r.problem().type()).isEqualTo(DataProblem.Type.DATA_NOT_READY);
        assertThat(r.problem().type().status()).isEqualTo(503);
        assertThat(r.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(r.problem().detail()).contains("home region cn cannot be read", "(peer " + cnUri + ")");
        assertThat(claim.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(claim.detail()).contains("at home region cn: no answer").endsWith("(peer " + cnUri + ")");
        assertThat(runs).hasValue(1);
        assertThat(timers.nanoTime()).as("decided without the deadline coming due").isZero();
        assertThat(timers.pending()).as("the calls' timers are called off").isZero();
    }

    @Test
    void aHomeThatNeverAnswers_getsTheClaimOnce_andItIsUnavailableAtTheDeadline_withItsOutcomeUnknown()
            throws Exception {
        try (ServerSocket blackhole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            AtomicInteger connections = new AtomicInteger();
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(blackhole.accept()); // and never a byte back
                        connections.incrementAndGet();
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.start();
            IdempotencyStore atCn = eu(URI.create("http://127.0.0.1:" + blackhole.getLocalPort()))
                    .idempotency(CN, "u-cn");
            CompletableFuture<StoreResult<IdempotencyRecord>> claim =
                    CompletableFuture.supplyAsync(() -> atCn.claim(inFlight("k-1")));
            Await.until("the claim's deadline is set", IO, () -> timers.pending() == 1);

            timers.advance(DEADLINE);
            StoreResult<IdempotencyRecord> r = claim.get(IO.toSeconds(), TimeUnit.SECONDS);

            assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
            assertThat(r.detail()).contains("no answer within the deadline of 250 ms", "its outcome is unknown");
            assertThat(secondAttempts()).as("no hedge, no retry of a claim that may have arrived").isZero();
            assertThat(calls("claim", "timed_out")).isEqualTo(1);
        }
    }

    @Test
    void aClaimThatEndsAfterItsCallerGaveUp_isTakenBack() throws Exception {
        CountDownLatch claiming = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        IdempotencyStore slow = new Slow(cnStore, claiming, release);
        IdempotencyStore atCn = eu(cn(slow).uri()).idempotency(CN, "u-cn");
        try {
            CompletableFuture<StoreResult<IdempotencyRecord>> claim =
                    CompletableFuture.supplyAsync(() -> atCn.claim(inFlight("k-1")));
            assertThat(claiming.await(IO.toSeconds(), TimeUnit.SECONDS)).isTrue();

            timers.advance(DEADLINE);                // eu gives up on the claim
            cnNanos.addAndGet(DEADLINE.toNanos());   // and cn's clock has passed the time eu had left
            assertThat(claim.get(IO.toSeconds(), TimeUnit.SECONDS).status()).isEqualTo(Status.UNAVAILABLE);
            release.countDown();                     // cn's store now grants the claim nobody waits for

            Await.until("cn takes the claim back", IO, () -> served("claim", "abandoned") == 1);
            assertThat(cnStore.idempotencyRecord("k-1").status()).isEqualTo(Status.NOT_FOUND);
        } finally {
            release.countDown();
        }
    }

    @Test
    void aCompleteThatFailsAtTheHome_isRetriedOnce_sinceCompletingTwiceIsCompletingOnce() {
        AtomicInteger completes = new AtomicInteger();
        IdempotencyStore flaky = new Forwarding(cnStore) {
            @Override
            public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
                if (completes.incrementAndGet() == 1) {
                    throw new IllegalStateException("connection reset by the database");
                }
                return super.complete(key, response);
            }
        };
        IdempotencyStore atCn = eu(cn(flaky).uri()).idempotency(CN, "u-cn");
        atCn.claim(inFlight("k-1"));

        StoreResult<IdempotencyRecord> r = atCn.complete("k-1", new StoredResponse(201, "o-1"));

        assertThat(r.status()).isEqualTo(Status.OK);
        assertThat(completes).hasValue(2);
        assertThat(served("complete", "failed")).isEqualTo(1);
        assertThat(secondAttempts()).isEqualTo(1);
    }

    // ---- a claim whose answer is lost: sent again with its claim token and granted again; any other stays 409

    /** cn's store that takes the key and then fails before answering, the first {@code times} claims. */
    private IdempotencyStore losingClaimAnswers(int times, AtomicInteger claims) {
        return new Forwarding(cnStore) {
            @Override
            public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
                StoreResult<IdempotencyRecord> taken = super.claim(record);
                if (claims.incrementAndGet() <= times) {
                    throw new IllegalStateException("connection reset after the claim committed");
                }
                return taken;
            }
        };
    }

    @Test
    void aClaimThatReachedCn_butWhoseAnswerWasLost_isGrantedAgainToItsOwner_andTheCheckoutRunsOnce() {
        AtomicInteger claims = new AtomicInteger();
        Idempotency checkouts = checkoutsInEu(eu(cn(losingClaimAnswers(1, claims)).uri()));

        IdempotencyResult r = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);

        assertThat(r.outcome()).isEqualTo(IdempotencyResult.Outcome.EXECUTED);
        assertThat(claims).as("sent again with the same claim token").hasValue(2);
        assertThat(served("claim", "failed")).isEqualTo(1);
        assertThat(served("claim", "ok")).isEqualTo(1);
        assertThat(runs).hasValue(1);
        assertThat(cnStore.idempotencyRecord("k-1").value().response()).isEqualTo(r.response());
        assertThat(checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder).outcome())
                .isEqualTo(IdempotencyResult.Outcome.REPLAYED);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aClaimHeldUnderAnotherToken_isStill409InFlight_andAnotherRequestUnderTheKeyIs422() {
        AtomicInteger claims = new AtomicInteger();
        Idempotency checkouts = checkoutsInEu(eu(cn(losingClaimAnswers(2, claims)).uri()));

        IdempotencyResult lost = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);
        IdempotencyResult retry = checkouts.execute("k-1", "alice", FINGERPRINT, this::placeOrder);
        IdempotencyResult reuse = checkouts.execute("k-1", "alice", "another-request", this::placeOrder);

        assertThat(lost.problem().type()).as("both answers lost").isEqualTo(DataProblem.Type.DATA_NOT_READY);
        assertThat(lost.problem().type().status()).isEqualTo(503);
        assertThat(retry.problem().type()).as("a new claim, a new token: the key is held by the lost one")
                .isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_IN_FLIGHT);
        assertThat(retry.problem().type().status()).isEqualTo(409);
        assertThat(reuse.problem().type()).isEqualTo(DataProblem.Type.IDEMPOTENCY_KEY_REUSED);
        assertThat(reuse.problem().type().status()).isEqualTo(422);
        assertThat(runs).hasValue(0);
    }

    @Test
    void aClaimWithoutToken_whoseAnswerWasLost_isNotSentAgain() {
        AtomicInteger claims = new AtomicInteger();
        IdempotencyStore atCn = eu(cn(losingClaimAnswers(1, claims)).uri()).idempotency(CN, "u-cn");

        StoreResult<IdempotencyRecord> r = atCn.claim(inFlight("k-1"));

        assertThat(r.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(claims).hasValue(1);
        assertThat(secondAttempts()).isZero();
    }

    // ---- stores around cn's

    private static class Forwarding implements IdempotencyStore {
        final IdempotencyStore to;

        Forwarding(IdempotencyStore to) {
            this.to = to;
        }

        @Override
        public StoreResult<IdempotencyRecord> idempotencyRecord(String key) {
            return to.idempotencyRecord(key);
        }

        @Override
        public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
            return to.claim(record);
        }

        @Override
        public StoreResult<IdempotencyRecord> complete(String key, StoredResponse response) {
            return to.complete(key, response);
        }

        @Override
        public StoreResult<String> release(String key) {
            return to.release(key);
        }
    }

    /** cn's database turned read-only: reads answer, writes are refused. */
    private static final class ReadOnly extends Forwarding {
        ReadOnly(IdempotencyStore to) {
            super(to);
        }

        @Override
        public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
            return StoreResult.readOnly(CN);
        }
    }

    /** A claim that waits in cn's database until the test lets it through. */
    private static final class Slow extends Forwarding {
        final CountDownLatch claiming;
        final CountDownLatch release;

        Slow(IdempotencyStore to, CountDownLatch claiming, CountDownLatch release) {
            super(to);
            this.claiming = claiming;
            this.release = release;
        }

        @Override
        public StoreResult<IdempotencyRecord> claim(IdempotencyRecord record) {
            claiming.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.claim(record);
        }
    }
}
