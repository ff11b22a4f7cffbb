package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.unitas.core.Region;
import io.unitas.testkit.Await;
import io.unitas.testkit.Ports;

/**
 * Home reads across a real HTTP/2 hop on loopback: a real {@link HomeReadServer} serving cn's store, a real
 * {@link HomeReadClient} in eu. The client's hedge and deadline run on {@link ManualTimers}, so every timing case is
 * decided by moving time, not by waiting for it; waits below are only for real I/O to happen.
 */
class HomeReadTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final String TOKEN = "utk_home-read-test-token";
    private static final Duration IO = Duration.ofSeconds(30);
    private static final Duration HEDGE = Duration.ofMillis(100);
    private static final Duration DEADLINE = Duration.ofMillis(250);
    private static final StoredEntity ALICE = new StoredEntity(3, "{\"name\":\"Alice\"}".getBytes(
            StandardCharsets.UTF_8), Instant.parse("2026-03-03T09:00:00Z"));

    /** cn's store: account key → entity, all in unit u-cn. */
    private static final Map<String, StoredEntity> accounts = new ConcurrentHashMap<>();
    private static final AtomicInteger readerCalls = new AtomicInteger();
    /** What cn's reader does in this test: by default, reads {@link #accounts}. */
    private static volatile EntityReader reader;
    /** Which units cn owns in this test: by default, u-cn. */
    private static volatile Predicate<String> owned;
    /** One cn for the cases that leave it running: a stopped Armeria server takes 2 s to release its threads. */
    private static HomeReadServer shared;
    private static SimpleMeterRegistry sharedMeters;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final ManualTimers timers = new ManualTimers();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @BeforeAll
    static void startCn() {
        sharedMeters = new SimpleMeterRegistry();
        shared = startCn(sharedMeters);
    }

    @AfterAll
    static void stopCn() {
        shared.close();
    }

    @BeforeEach
    void cnAsUsual() {
        accounts.clear();
        accounts.put("alice", ALICE);
        readerCalls.set(0);
        owned = "u-cn"::equals;
        reader = (unit, key) -> Optional.ofNullable(accounts.get(key));
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private static HomeReadServer startCn(SimpleMeterRegistry serverMeters) {
        return HomeReadServer.builder().region(CN).owns(unit -> owned.test(unit)).token(TOKEN)
                             .reader("account", (unit, key) -> {
                                 readerCalls.incrementAndGet();
                                 return reader.read(unit, key);
                             })
                             .meterRegistry(serverMeters).start();
    }

    /** cn, running for the whole class. */
    private HomeReadServer cn() {
        return shared;
    }

    /** cn, with this reader, running for the whole class. */
    private HomeReadServer cn(Predicate<String> owns, EntityReader accountReader) {
        owned = owns;
        reader = accountReader;
        return shared;
    }

    /** A cn of this test's own, which it may stop. */
    private HomeReadServer ownCn(SimpleMeterRegistry serverMeters) {
        HomeReadServer s = startCn(serverMeters);
        open.add(s);
        return s;
    }

    private HomeReadClient eu(URI cn, String token) {
        HomeReadClient c = HomeReadClient.builder().endpoint(CN, cn).token(token).deadline(DEADLINE).hedgeAfter(HEDGE)
                                         .meterRegistry(meters).build(timers);
        open.add(c);
        return c;
    }

    private HomeReadClient eu(URI cn) {
        return eu(cn, TOKEN);
    }

    private static HomeRead await(java.util.concurrent.CompletionStage<HomeRead> read) throws Exception {
        return read.toCompletableFuture().get(IO.toSeconds(), TimeUnit.SECONDS);
    }

    private double reads(String outcome) {
        var c = meters.find("unitas.data.home.reads").tag("home", "cn").tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    private double secondAttempts(String reason) {
        var c = meters.find("unitas.data.home.read.second.attempts").tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    // ---- answers of a reachable home

    @Test
    void found_theHomesEntityArrivesWhole() throws Exception {
        HomeRead r = await(eu(cn().uri()).read(CN, "u-cn", "account", "alice"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.FOUND);
        assertThat(r.entity()).isEqualTo(ALICE);
        assertThat(r.problem()).isNull();
        assertThat(r.homeStatus()).isEqualTo(200);
        assertThat(r.detail()).contains("account 'alice' of unit u-cn", "home region cn");
    }

    @Test
    void keysWithSlashesSpacesAndNonAsciiTravelIntact() throws Exception {
        String key = "a/b c&d=é?#%2F";
        accounts.put(key, ALICE);

        assertThat(await(eu(cn().uri()).read(CN, "u-cn", "account", key)).entity()).isEqualTo(ALICE);
    }

    @Test
    void notFound_onlyWhenTheHomeSaysSo() throws Exception {
        HomeRead r = await(eu(cn().uri()).read(CN, "u-cn", "account", "nobody"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.NOT_FOUND);
        assertThat(r.notReady()).isFalse();
        assertThat(r.problem()).isNull();
        assertThat(r.homeStatus()).isEqualTo(404);
    }

    @Test
    void unknownEntityType_isARejection_notAMissingEntity() throws Exception {
        HomeRead r = await(eu(cn().uri()).read(CN, "u-cn", "order", "o-1"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.REJECTED);
        assertThat(r.notReady()).isTrue();
        assertThat(r.homeStatus()).isEqualTo(404);
        assertThat(r.detail()).contains("unknown-entity-type", "order");
    }

    @Test
    void unitNotOwned_isRefusedWithoutReading_andIsDataNotReady() throws Exception {
        HomeRead r = await(eu(cn().uri()).read(CN, "u-eu", "account", "alice"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.NOT_HOME);
        assertThat(r.homeStatus()).isEqualTo(421);
        assertThat(r.problem().type()).isEqualTo("data-not-ready");
        assertThat(r.problem().status()).isEqualTo(503);
        assertThat(r.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(r.detail()).contains("not-home-region", "unit u-eu", "region cn is not its home");
        assertThat(readerCalls).hasValue(0);
    }

    @Test
    void unitMovedAwayDuringTheRead_isRefused() throws Exception {
        AtomicBoolean stillHome = new AtomicBoolean(true);
        HomeReadServer s = cn(unit -> stillHome.get(), (unit, key) -> {
            stillHome.set(false); // a switchover flips the unit while the store is being read
            return Optional.of(ALICE);
        });

        assertThat(await(eu(s.uri()).read(CN, "u-cn", "account", "alice")).outcome())
                .isEqualTo(HomeRead.Outcome.NOT_HOME);
    }

    @Test
    void wrongToken_is401ProblemJson_andTheClientSeesARejection() throws Exception {
        HomeReadServer s = cn();

        HomeRead r = await(eu(s.uri(), "utk_someone-else").read(CN, "u-cn", "account", "alice"));
        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.REJECTED);
        assertThat(r.homeStatus()).isEqualTo(401);
        assertThat(r.problem().type()).isEqualTo("data-not-ready");
        assertThat(readerCalls).hasValue(0);

        HttpResponse<String> raw = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(s.uri().resolve(HomeReadWire.PATH + "?unit=u-cn&type=account&key=alice"))
                           .header("Authorization", "Bearer wrong").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(raw.statusCode()).isEqualTo(401);
        assertThat(raw.headers().firstValue("www-authenticate")).hasValue("Bearer");
        assertThat(raw.headers().firstValue("content-type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(raw.body()).contains("\"type\":\"urn:unitas:problem:unauthenticated\"", "\"status\":401");
    }

    @ParameterizedTest
    @ValueSource(strings = {"unit=u-cn&unit=u-eu&type=account&key=alice", "unit=u-cn&type=account&key=alice&key=bob",
                            "unit=u-cn&type=account&type=account&key=alice"})
    void aParameterGivenTwice_is400NamingIt_andNothingIsRead(String query) throws Exception {
        // A request that says two things is refused, as the gateway and the starter refuse a key given twice.
        HomeReadServer s = cn();
        String name = query.contains("unit=u-eu") ? "unit" : query.contains("key=bob") ? "key" : "type";

        HttpResponse<String> raw = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(s.uri().resolve(HomeReadWire.PATH + "?" + query))
                           .header("Authorization", "Bearer " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(raw.statusCode()).isEqualTo(400);
        assertThat(raw.body()).contains("\"type\":\"urn:unitas:problem:bad-request\"",
                                        "query: " + name + " given 2 times (expected: once)");
        assertThat(readerCalls).hasValue(0);
    }

    @Test
    void readerFailure_isRetriedOnce_thenHomeFailed() throws Exception {
        HomeReadServer s = cn("u-cn"::equals, (unit, key) -> {
            throw new IllegalStateException("disk on fire");
        });

        HomeRead r = await(eu(s.uri()).read(CN, "u-cn", "account", "alice"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.HOME_FAILED);
        assertThat(r.homeStatus()).isEqualTo(500);
        assertThat(r.problem().type()).isEqualTo("data-not-ready");
        assertThat(r.detail()).contains("home-read-failed").doesNotContain("disk on fire");
        assertThat(readerCalls).hasValue(2);
        assertThat(secondAttempts("retry")).isEqualTo(1);
    }

    // ---- a home that cannot be reached: data-not-ready within the deadline, never not-found

    @Test
    void homeDown_isDataNotReady_beforeTheDeadline() throws Exception {
        HomeReadServer s = ownCn(new SimpleMeterRegistry());
        HomeReadClient eu = eu(s.uri());
        assertThat(await(eu.read(CN, "u-cn", "account", "alice")).found()).isTrue();

        s.close();
        HomeRead r = await(eu.read(CN, "u-cn", "account", "alice"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
        assertThat(r.problem().type()).isEqualTo("data-not-ready");
        assertThat(r.problem().status()).isEqualTo(503);
        assertThat(r.homeStatus()).isZero();
        assertThat(timers.nanoTime()).as("decided without the deadline coming due").isZero();
        assertThat(timers.pending()).as("the read's timers are called off").isZero();
        assertThat(secondAttempts("retry")).isEqualTo(1);
    }

    @Test
    void aHomeOfTwoInstances_oneDown_isReadAtTheOther() throws Exception {
        HomeReadServer a = ownCn(new SimpleMeterRegistry());
        HomeReadServer b = ownCn(new SimpleMeterRegistry());
        HomeReadClient eu = HomeReadClient.builder().endpoint(CN, a.uri()).endpoint(CN, b.uri()).token(TOKEN)
                                          .deadline(DEADLINE).hedgeAfter(HEDGE).meterRegistry(meters).build(timers);
        open.add(eu);

        b.close();
        for (int i = 0; i < 4; i++) {
            assertThat(await(eu.read(CN, "u-cn", "account", "alice")).found()).as("read %d", i).isTrue();
        }
        a.close();
        assertThat(await(eu.read(CN, "u-cn", "account", "alice")).outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
    }

    @Test
    void homeNeverStarted_isUnreachable() throws Exception {
        HomeRead r = await(eu(URI.create("http://127.0.0.1:" + Ports.free())).read(CN, "u-cn", "account", "alice"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
        assertThat(r.detail()).contains("home region cn cannot be read");
    }

    @Test
    void anAnswerWithoutAProblemBody_isRejected_namingItsStatus_neverAsAnotherTypesProblem() throws Exception {
        // Not a home: something in between (a proxy, a firewall) answering 403 in plain text.
        com.linecorp.armeria.server.Server between = com.linecorp.armeria.server.Server.builder().http(0)
                .service("prefix:/", (ctx, req) -> com.linecorp.armeria.common.HttpResponse.of(
                        com.linecorp.armeria.common.HttpStatus.FORBIDDEN))
                .build();
        between.start().join();
        try {
            HomeRead r = await(eu(URI.create("http://127.0.0.1:" + between.activeLocalPort()))
                                       .read(CN, "u-cn", "account", "alice"));

            assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.REJECTED);
            assertThat(r.detail()).contains("answered unexpected-answer (502): status 403, no problem body")
                                  .doesNotContain("about:blank");
            assertThat(r.problem().type()).isEqualTo("data-not-ready");
        } finally {
            between.stop().join();
        }
    }

    @Test
    void noEndpointForTheHome_isUnreachableAtOnce() throws Exception {
        HomeRead r = await(eu(URI.create("http://127.0.0.1:1")).read(Region.of("us"), "u-us", "account", "bob"));

        assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
        assertThat(r.detail()).contains("no endpoint for it (expected: one of [cn])");
    }

    @Test
    void homeThatAcceptsButNeverAnswers_timesOutAtTheDeadline() throws Exception {
        try (ServerSocket blackhole = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(blackhole.accept()); // and never a byte back
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.start();
            CompletableFuture<HomeRead> read = eu(URI.create("http://127.0.0.1:" + blackhole.getLocalPort()))
                    .read(CN, "u-cn", "account", "alice").toCompletableFuture();

            timers.advance(HEDGE);
            assertThat(read).isNotDone();
            timers.advance(DEADLINE.minus(HEDGE));
            HomeRead r = await(read);

            assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.TIMED_OUT);
            assertThat(r.problem().type()).isEqualTo("data-not-ready");
            assertThat(r.detail()).contains("no answer within the deadline of 250 ms");
            assertThat(secondAttempts("hedge")).isEqualTo(1);
        }
    }

    @Test
    void killedMidRead_theCallerSeesTheHomeUnreachable() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HomeReadServer s = ownCn(new SimpleMeterRegistry());
        reader = (unit, key) -> {
            release.await();
            return Optional.of(ALICE);
        };
        try {
            CompletableFuture<HomeRead> read = eu(s.uri()).read(CN, "u-cn", "account", "alice").toCompletableFuture();
            Await.until("the read reaches cn's store", IO, () -> readerCalls.get() == 1);

            CompletableFuture.runAsync(s::close); // stops at once, cutting the connection under the read
            HomeRead r = await(read);

            // The cut connection, then the retry refused (or, while the server is still going down, a 5xx of its own)
            assertThat(r.outcome()).isIn(HomeRead.Outcome.UNREACHABLE, HomeRead.Outcome.HOME_FAILED);
            assertThat(r.problem().type()).isEqualTo("data-not-ready");
            assertThat(timers.nanoTime()).as("decided without the deadline coming due").isZero();
        } finally {
            release.countDown();
        }
    }

    @Test
    void clientClosedMidRead_theReadEndsUnreachable() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        cn("u-cn"::equals, (unit, key) -> {
            release.await();
            return Optional.of(ALICE);
        });
        try {
            HomeReadClient eu = eu(shared.uri());
            CompletableFuture<HomeRead> read = eu.read(CN, "u-cn", "account", "alice").toCompletableFuture();
            Await.until("the read reaches cn's store", IO, () -> readerCalls.get() == 1);

            eu.close();

            assertThat(await(read).outcome()).isEqualTo(HomeRead.Outcome.UNREACHABLE);
            assertThat(await(eu.read(CN, "u-cn", "account", "alice")).detail()).contains("the client is closed");
        } finally {
            release.countDown();
        }
    }

    // ---- a slow home: the hedge or the deadline answers

    @Test
    void slowHome_theHedgeAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HomeReadServer s = cn("u-cn"::equals, (unit, key) -> {
            if (readerCalls.get() == 1) {
                release.await(); // the first attempt hits a stalled connection to the database
            }
            return Optional.of(ALICE);
        });
        try {
            CompletableFuture<HomeRead> read = eu(s.uri()).read(CN, "u-cn", "account", "alice").toCompletableFuture();
            Await.until("the first attempt reaches cn's store", IO, () -> readerCalls.get() == 1);
            assertThat(read).isNotDone();

            timers.advance(HEDGE);
            HomeRead r = await(read);

            assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.FOUND);
            assertThat(r.entity()).isEqualTo(ALICE);
            assertThat(readerCalls).hasValue(2);
            assertThat(secondAttempts("hedge")).isEqualTo(1);
            assertThat(timers.pending()).as("the deadline is called off").isZero();
        } finally {
            release.countDown();
        }
    }

    @Test
    void slowHome_theDeadlineAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HomeReadServer s = cn("u-cn"::equals, (unit, key) -> {
            release.await();
            return Optional.of(ALICE);
        });
        try {
            CompletableFuture<HomeRead> read = eu(s.uri()).read(CN, "u-cn", "account", "alice").toCompletableFuture();
            Await.until("the first attempt reaches cn's store", IO, () -> readerCalls.get() == 1);
            timers.advance(HEDGE);
            Await.until("the hedge reaches cn's store", IO, () -> readerCalls.get() == 2);
            assertThat(read).isNotDone();

            timers.advance(DEADLINE.minus(HEDGE));
            HomeRead r = await(read);

            assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.TIMED_OUT);
            assertThat(r.notReady()).isTrue();
            assertThat(r.problem().retryAfter()).isEqualTo(Duration.ofSeconds(1));
        } finally {
            release.countDown();
        }
    }

    @Test
    void aHomeDeclaresItsEntityTypesAndCodecs_toCallersWithTheToken_andAnUnreachableOneSaysWhy() throws Exception {
        HomeReadServer s = HomeReadServer.builder().region(CN).owns("u-cn"::equals).token(TOKEN)
                .reader("account", "account-json/2", (unit, key) -> Optional.of(ALICE))
                .reader("note", (unit, key) -> Optional.empty())
                .start();
        open.add(s);

        HomeReadClient.Declarations declared = eu(s.uri()).declarations().toCompletableFuture()
                                                          .get(IO.toSeconds(), TimeUnit.SECONDS).get(CN);

        assertThat(declared.known()).as(declared.unknown()).isTrue();
        assertThat(declared.codecs()).containsExactlyInAnyOrderEntriesOf(Map.of("account", "account-json/2",
                                                                               "note", ""));
        HomeReadClient.Declarations wrongToken = eu(s.uri(), "not-the-token").declarations().toCompletableFuture()
                                                                             .get(IO.toSeconds(), TimeUnit.SECONDS)
                                                                             .get(CN);
        assertThat(wrongToken.known()).isFalse();
        assertThat(wrongToken.unknown()).contains("401");
        int closedPort = Ports.free();
        HomeReadClient.Declarations unreachable = eu(URI.create("http://127.0.0.1:" + closedPort)).declarations()
                .toCompletableFuture().get(IO.toSeconds(), TimeUnit.SECONDS).get(CN);
        assertThat(unreachable.known()).isFalse();
        assertThat(unreachable.unknown()).startsWith("unreachable (");
    }

    @Test
    void withoutHedging_aSlowFirstAttemptIsNotDuplicated() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        HomeReadServer s = cn("u-cn"::equals, (unit, key) -> {
            release.await();
            return Optional.of(ALICE);
        });
        HomeReadClient eu = HomeReadClient.builder().endpoint(CN, s.uri()).token(TOKEN).deadline(DEADLINE)
                                          .withoutHedging().meterRegistry(meters).build(timers);
        open.add(eu);
        try {
            CompletableFuture<HomeRead> read = eu.read(CN, "u-cn", "account", "alice").toCompletableFuture();
            Await.until("the read reaches cn's store", IO, () -> readerCalls.get() == 1);
            timers.advance(DEADLINE);

            assertThat(await(read).outcome()).isEqualTo(HomeRead.Outcome.TIMED_OUT);
            assertThat(readerCalls).hasValue(1);
            assertThat(secondAttempts("hedge")).isZero();
        } finally {
            release.countDown();
        }
    }

    @Test
    void aReadWaitingAtTheHomeLongerThanItsCallerHadLeft_isDroppedUnread() throws Exception {
        AtomicLong cnNanos = new AtomicLong();
        AtomicInteger arrived = new AtomicInteger();
        List<String> readKeys = new CopyOnWriteArrayList<>();
        CountDownLatch release = new CountDownLatch(1);
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        HomeReadServer s = HomeReadServer.builder().region(CN).token(TOKEN).blockingThreads(1).ticker(cnNanos::get)
                .owns(unit -> arrived.incrementAndGet() > 0)
                .reader("account", (unit, key) -> {
                    readKeys.add(key);
                    if (key.equals("slow")) {
                        release.await(); // holds cn's only reader thread
                    }
                    return Optional.of(ALICE);
                })
                .meterRegistry(serverMeters).start();
        open.add(s);
        HomeReadClient eu = HomeReadClient.builder().endpoint(CN, s.uri()).token(TOKEN).deadline(DEADLINE)
                                          .withoutHedging().meterRegistry(meters).build(timers);
        open.add(eu);
        try {
            eu.read(CN, "u-cn", "account", "slow");
            Await.until("the slow read holds cn's reader thread", IO, () -> readKeys.size() == 1);
            CompletableFuture<HomeRead> queued = eu.read(CN, "u-cn", "account", "alice").toCompletableFuture();
            Await.until("the second read waits at cn", IO, () -> arrived.get() == 2);

            cnNanos.addAndGet(DEADLINE.toNanos()); // it has waited at cn all the 250 ms its caller had left
            release.countDown();
            HomeRead r = await(queued);

            assertThat(serverMeters.find("unitas.data.home.read.served").tag("outcome", "expired").counter().count())
                    .isEqualTo(1);
            // Dropped unread; the caller, whose clock had not run out, retried and was answered.
            assertThat(r.outcome()).isEqualTo(HomeRead.Outcome.FOUND);
            assertThat(readKeys).containsExactly("slow", "alice");
            assertThat(secondAttempts("retry")).isEqualTo(1);
        } finally {
            release.countDown();
        }
    }

    // ---- metrics

    @Test
    void metrics_countReadsByOutcome_timeThem_andCountSecondAttempts() throws Exception {
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        HomeReadServer s = ownCn(serverMeters);
        HomeReadClient eu = eu(s.uri());
        await(eu.read(CN, "u-cn", "account", "alice"));
        await(eu.read(CN, "u-cn", "account", "alice"));
        await(eu.read(CN, "u-cn", "account", "nobody"));
        await(eu.read(CN, "u-eu", "account", "alice"));
        s.close();
        await(eu.read(CN, "u-cn", "account", "alice"));

        assertThat(reads("found")).isEqualTo(2);
        assertThat(reads("not_found")).isEqualTo(1);
        assertThat(reads("not_home")).isEqualTo(1);
        assertThat(reads("unreachable")).isEqualTo(1);
        assertThat(reads("timed_out")).isZero();
        assertThat(meters.find("unitas.data.home.read.duration").tag("home", "cn").timer().count()).isEqualTo(5);
        assertThat(secondAttempts("retry")).isEqualTo(1);
        assertThat(serverMeters.find("unitas.data.home.read.served").tag("region", "cn").tag("type", "account")
                               .tag("outcome", "found").counter().count()).isEqualTo(2);
        assertThat(serverMeters.find("unitas.data.home.read.served").tag("outcome", "not_home").counter().count())
                .isEqualTo(1);
    }

    // ---- settings

    @Test
    void settingsThatCannotWork_areRefusedNamingTheSetting() {
        assertThatThrownBy(() -> HomeReadClient.builder().token(TOKEN).endpoint(CN, URI.create("http://cn:1"))
                                               .deadline(Duration.ofMillis(100)).hedgeAfter(Duration.ofMillis(100))
                                               .build())
                .hasMessageContaining("hedge_after: PT0.1S (expected: < deadline PT0.1S, or withoutHedging())");
        assertThatThrownBy(() -> HomeReadClient.builder().endpoint(CN, URI.create("ftp://cn:1")))
                .hasMessageContaining("endpoint of cn: 'ftp://cn:1' (expected: http://host:port or https://host:port)");
        assertThatThrownBy(() -> HomeReadClient.builder().endpoint(CN, URI.create("http://cn:1")).build())
                .hasMessageContaining("token: not set");
        assertThatThrownBy(() -> HomeReadServer.builder().region(CN).owns(u -> true).token(TOKEN).start())
                .hasMessageContaining("readers: none");
        assertThatThrownBy(() -> HomeReadServer.builder().reader("Account", (u, k) -> Optional.empty()))
                .hasMessageContaining("entity type: 'Account' (expected: lowercase");
        assertThatThrownBy(() -> HomeReadServer.builder().region(CN).owns(u -> true).token(TOKEN)
                                               .reader("account", (u, k) -> Optional.empty())
                                               .listen("0.0.0.0", 0).start())
                .hasMessageContaining("listen 0.0.0.0: not a loopback address, without TLS");
    }
}
