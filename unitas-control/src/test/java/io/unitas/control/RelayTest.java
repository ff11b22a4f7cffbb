package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.wire.FenceRequest;

/**
 * Relays re-serve the control plane's watch with the same revisions: a watcher that loses its relay mid-stream
 * resumes on another by revision with nothing missed or reordered; a relay whose upstream restarts catches up by
 * revision; and a relay whose upstream has gone silent says so in its health and metrics.
 */
class RelayTest {

    @TempDir
    Path dir;

    private ControlServer server;
    private ControlClient operator;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(Fixtures.tokensFile(dir)).start();
        Fixtures.seed(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), Instant.now(), 0);
        operator = ControlClient.of(server.uri(), Fixtures.OPERATOR.secret());
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Relay relay(URI upstream, ManualScheduler time) {
        Relay.Builder b = Relay.builder().upstream(upstream).upstreamToken(() -> Fixtures.VIEWER.secret())
                               .tokens(dir.resolve("tokens")).port(0)
                               .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
        if (time != null) {
            b.scheduler(time);
        }
        Relay relay = b.start();
        open.add(relay);
        return relay;
    }

    private ControlClient.Watch watch(URI uri, long since, Set<ControlClient.Part> parts, List<Long> into) {
        ControlClient.Watch w = ControlClient.builder(uri).token(Fixtures.VIEWER.secret())
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).build()
                .watch(since, parts, e -> into.add(e.revision()));
        open.add(w);
        return w;
    }

    private long change(int i) {
        return (i % 2 == 0 ? operator.fence(FenceRequest.of(List.of("u-ny"), "relay test")) : operator.liftFence("u-ny", "relay test"))
                .revision();
    }

    @Test
    void aWatcherWhoseRelayDiesMidStream_resumesOnAnotherByRevision_nothingMissedOrReordered() throws Exception {
        Relay a = relay(server.uri(), null);
        Relay b = relay(server.uri(), null);
        long start = server.revision();
        await(() -> a.revision() == start && b.revision() == start, "both relays have the current state");
        Set<ControlClient.Part> config = EnumSet.of(ControlClient.Part.CONFIG);
        List<Long> direct = new CopyOnWriteArrayList<>();
        watch(server.uri(), start, config, direct);
        List<Long> viaA = new CopyOnWriteArrayList<>();
        ControlClient.Watch onA = watch(a.uri(), start, config, viaA);

        // changes keep coming, health reports between them (revisions a config watcher must not get)
        RawClient reporter = RawClient.of(server.uri(), Fixtures.REPORTER.secret());
        List<Long> made = new CopyOnWriteArrayList<>();
        Thread writer = new Thread(() -> {
            for (int i = 0; i < 40; i++) {
                made.add(change(i));
                reporter.send("PUT", "/api/v1/health/eu", Fixtures.report("eu", i + 2, Instant.now(), true, i), Map.of());
            }
        });
        writer.start();
        await(() -> viaA.size() >= 10, "the watcher on relay a got ten changes");
        int madeBeforeKill = made.size();
        a.close(); // mid-stream: the writer is still going
        onA.close();
        assertThat(madeBeforeKill).as("changes made when relay a died").isLessThan(40);
        long resumeAfter = viaA.get(viaA.size() - 1);
        List<Long> viaB = new CopyOnWriteArrayList<>();
        watch(b.uri(), resumeAfter, config, viaB);
        writer.join(60_000);
        long last = made.get(made.size() - 1);
        await(() -> viaB.contains(last) && direct.contains(last),
              "the last change reached the watcher through relay b and the direct watcher");

        List<Long> joined = new ArrayList<>(viaA);
        joined.addAll(viaB);
        assertThat(joined).as("through a, then b resumed after " + resumeAfter).isSorted().doesNotHaveDuplicates();
        List<Long> changes = joined.stream().filter(made::contains).toList();
        assertThat(changes).as("every config change, in order").isEqualTo(direct).isEqualTo(made);
        // a resumed stream ends its catch-up with the newest revision, which may have changed health alone
        assertThat(joined.size() - changes.size()).as("revisions beyond the changes: " + joined).isLessThanOrEqualTo(1);
        assertThat(viaB).as("b gave what a had not yet sent, and what came after").isNotEmpty();
    }

    @Test
    void aRelayOfARelay_servesTheSameRevisions() throws Exception {
        Relay first = relay(server.uri(), null);
        Relay second = relay(first.uri(), null);
        long start = server.revision();
        await(() -> second.revision() == start, "the second relay has the current state");
        List<Long> got = new CopyOnWriteArrayList<>();
        watch(second.uri(), start, EnumSet.allOf(ControlClient.Part.class), got);
        long changed = change(0);
        await(() -> got.contains(changed), "a change reached the watcher through two relays");
        assertThat(got).containsExactly(changed);
    }

    @Test
    void anUpstreamRestart_isVisibleInHealth_andTheRelayCatchesUpByRevision() throws Exception {
        int port = server.port();
        Relay relay = relay(server.uri(), null);
        long start = server.revision();
        await(() -> relay.revision() == start && relay.healthy(), "the relay follows the control plane");
        List<Long> got = new CopyOnWriteArrayList<>();
        watch(relay.uri(), start, EnumSet.of(ControlClient.Part.CONFIG), got);
        long before = change(0);
        await(() -> got.contains(before), "a change before the restart");

        server.close();
        server = null;
        await(() -> !relay.healthy(), "the relay notices its upstream is gone");
        HttpResponse<String> down = get(relay.uri().resolve("/healthz"));
        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.body()).startsWith("upstream down:");

        server = ControlServer.builder().port(port).dataDir(dir.resolve("data")).tokens(dir.resolve("tokens")).start();
        operator = ControlClient.of(server.uri(), Fixtures.OPERATOR.secret());
        long after = change(1);
        await(() -> got.contains(after), "a change after the restart reached the watcher through the relay");
        assertThat(got).containsExactly(before, after);
        assertThat(relay.upstream().reconnects()).isPositive();
        await(relay::healthy, "the relay is healthy again");
        assertThat(get(relay.uri().resolve("/healthz")).statusCode()).isEqualTo(200);
    }

    @Test
    void aHalfOpenUpstream_isDeclaredDeadAfterThreeMissedHeartbeats_inHealthAndMetrics() throws Exception {
        ManualScheduler time = new ManualScheduler();
        try (FreezingProxy proxy = new FreezingProxy(server.uri())) {
            Relay relay = relay(proxy.uri(), time);
            await(() -> relay.revision() == server.revision() && relay.healthy(), "the relay follows");
            proxy.freeze();

            time.forward(Duration.ofSeconds(14));
            assertThat(relay.healthy()).as("two missed heartbeats are not yet three").isTrue();
            time.forward(Duration.ofMillis(1_001));
            assertThat(relay.healthy()).isFalse();
            HttpResponse<String> health = get(relay.uri().resolve("/healthz"));
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).startsWith("upstream down:").contains("no heartbeat for 15000 ms");
            assertThat(get(relay.uri().resolve("/metrics")).body())
                    .contains("\nunitas_relay_upstream_connected 0.0\n").doesNotContain("unitas_control_commit");
        }
    }

    @Test
    void aWatcherWithoutAViewerToken_isRefused() throws Exception {
        Relay relay = relay(server.uri(), null);
        HttpResponse<String> res = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(relay.uri().resolve("/api/v1/watch")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).isEqualTo(401);
        assertThat(res.body()).contains("no bearer token");
    }

    private static HttpResponse<String> get(URI uri) throws Exception {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + Fixtures.VIEWER.secret()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Waits for a condition of the servers (a bound on the test, not a decision it times). */
    private static void await(BooleanSupplier condition, String what) {
        io.unitas.testkit.Await.until(what, Duration.ofSeconds(60), condition);
    }
}
