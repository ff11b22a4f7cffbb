package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.wire.FenceRequest;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.testkit.Await;
import io.unitas.testkit.MutableClock;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What the watch takes on: watches per token and in all, readers slower than the changes, revoked tokens, the parts
 * a watcher asks for and health coalesced between config changes.
 */
class WatchLimitsTest {

    @TempDir
    Path dir;

    private ControlServer server;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));

    private void start(int perToken, int total, long unsentBytes, Duration healthEvery) {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir)).clock(clock)
                              .healthFreshness(Duration.ofDays(1), Duration.ofDays(1))
                              .watchLimits(perToken, total, unsentBytes, healthEvery).start();
        Fixtures.seed(RawClient.of(server.uri(), Fixtures.ADMIN.secret()), clock.instant(), 0);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** An open watch read by a thread of its own: its status, and its events as (revision, data). */
    private final class Watching implements AutoCloseable {
        final int status;
        final String problem;
        final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
        volatile boolean ended;
        private final Stream<String> lines;

        Watching(ControlToken token, String query) throws Exception {
            HttpResponse<Stream<String>> res = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(server.uri().resolve("/api/v1/watch" + query))
                               .header("Authorization", "Bearer " + token.secret()).build(),
                    HttpResponse.BodyHandlers.ofLines());
            status = res.statusCode();
            lines = res.body();
            if (status != 200) {
                problem = String.join("\n", lines.toList());
                return;
            }
            problem = null;
            Thread reader = new Thread(() -> {
                try {
                    lines.forEach(line -> {
                        if (line.startsWith("data: ")) {
                            events.add(StateJson.parse(line.substring(6)));
                        }
                    });
                } catch (RuntimeException e) {
                    // dropped
                }
                ended = true;
            });
            reader.setDaemon(true);
            reader.start();
            open.add(this);
        }

        JsonNode next() throws InterruptedException {
            JsonNode e = events.poll(10, TimeUnit.SECONDS);
            assertThat(e).as("an event within 10 s").isNotNull();
            return e;
        }

        @Override
        public void close() {
            lines.close();
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what) {
        Await.until(what, java.time.Duration.ofSeconds(20), condition);
    }

    @Test
    void watchesAreCappedPerTokenWith429_andInAllWith503() throws Exception {
        start(2, 3, 1 << 20, Duration.ZERO);
        Watching a = new Watching(Fixtures.VIEWER, "");
        new Watching(Fixtures.VIEWER, "");
        Watching third = new Watching(Fixtures.VIEWER, "");
        assertThat(third.status).isEqualTo(429);
        assertThat(third.problem).contains("urn:unitas:problem:too-many-watches").contains("token watcher holds 2");

        new Watching(Fixtures.OPERATOR, "");
        Watching fourth = new Watching(Fixtures.ADMIN, "");
        assertThat(fourth.status).isEqualTo(503);
        assertThat(fourth.problem).contains("urn:unitas:problem:watchers-full");

        a.close();
        awaitTrue(() -> {
            try (Watching again = new Watching(Fixtures.ADMIN, "")) {
                return again.status == 200;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "a closed watch's place is free again");
    }

    @Test
    void aWatcherThatDoesNotRead_isDroppedPastItsByteBudget_insteadOfBeingBufferedWithoutLimit() throws Exception {
        start(64, 100, 64 << 10, Duration.ZERO);
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
        open.add(socket);
        OutputStream out = socket.getOutputStream();
        out.write(("GET /api/v1/watch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                   + Fixtures.VIEWER.secret() + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();

        RawClient agent = RawClient.of(server.uri(), Fixtures.REPORTER.secret());
        String big = "x".repeat(50_000); // a report stays under the route's 64 KiB body limit
        for (int i = 1; i <= 80; i++) { // each state then carries ~150 KB of checks: ~12 MB for the watcher
            String region = List.of("cn", "eu", "us").get(i % 3);
            ControlResponse res = Fixtures.putHealth(agent, region, Fixtures.report(region, 100 + i, clock.instant(), true, 0)
                    .replace("\"reason\":\"\"", "\"reason\":\"" + big + i + "\""));
            assertThat(res.status()).as(res.body()).isEqualTo(200);
        }

        InputStream in = socket.getInputStream();
        socket.setSoTimeout(1_000);
        byte[] buffer = new byte[1 << 16];
        long read = 0;
        boolean ended = false;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ended && System.nanoTime() < deadline) { // heartbeats keep a live stream from ever timing out
            try {
                int n = in.read(buffer);
                if (n < 0) {
                    ended = true;
                } else {
                    read += n;
                }
            } catch (java.net.SocketTimeoutException e) {
                // nothing yet: read on until the deadline
            } catch (java.net.SocketException e) {
                ended = true; // reset: dropped too
            }
        }
        assertThat(ended).as("the server ended the stream of a watcher that did not read").isTrue();
        assertThat(read).as("what reached the socket before the drop (of ~11 MB)").isLessThan(6_000_000);
        assertThat(ControlMetricsEndpointTest.scrape(java.net.http.HttpClient.newHttpClient(), server.uri()))
                .as("the drop, counted").containsEntry("unitas_control_watch_drops_total", 1.0);
    }

    @Test
    void aRevokedTokensWatch_isClosed() throws Exception {
        start(64, 100, 1 << 20, Duration.ZERO);
        Watching watch = new Watching(Fixtures.VIEWER, "");
        watch.next();
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, String.join("\n", Fixtures.ADMIN.fileLine(), Fixtures.OPERATOR.fileLine()) + "\n");
        Files.setLastModifiedTime(tokens, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(tokens).toMillis() + 2000));

        awaitTrue(() -> watch.ended, "the revoked token's watch ends");
    }

    @Test
    void aLastEventIdThatIsNotARevision_is400() throws Exception {
        start(64, 100, 1 << 20, Duration.ZERO);
        HttpResponse<String> res = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(server.uri().resolve("/api/v1/watch"))
                           .header("Authorization", "Bearer " + Fixtures.VIEWER.secret())
                           .header("Last-Event-ID", "9".repeat(400)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).isEqualTo(400);
        assertThat(res.body()).contains("Last-Event-ID");

        Watching parts = new Watching(Fixtures.VIEWER, "?parts=config,weather");
        assertThat(parts.status).isEqualTo(400);
        assertThat(parts.problem).contains("parts: 'weather' (expected: config, health or both)");
    }

    @Test
    void aWatcherGetsOnlyThePartsItAskedFor_andHealthAloneIsCoalescedUntilTheNextConfigChange() throws Exception {
        start(64, 100, 1 << 20, Duration.ofHours(1));
        RawClient agent = RawClient.of(server.uri(), Fixtures.REPORTER.secret());
        RawClient operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
        long seeded = server.revision();
        Watching all = new Watching(Fixtures.VIEWER, "");
        Watching config = new Watching(Fixtures.VIEWER, "?parts=config");
        Watching health = new Watching(Fixtures.OPERATOR, "?parts=health");
        assertThat(all.next().path("revision").asLong()).isEqualTo(seeded);
        assertThat(config.next().has("health")).isFalse();
        JsonNode first = health.next();
        assertThat(first.has("topology")).isFalse();
        assertThat(first.has("rules")).isFalse();
        assertThat(first.path("health").has("cn")).isTrue();

        assertThat(Fixtures.putHealth(agent, "eu", Fixtures.report("eu", 50, clock.instant(), true, 7)).status())
                .isEqualTo(200);
        long coalesced = server.revision();
        long fenced = operator.fence(FenceRequest.of(List.of("u-ny"), "drill")).revision();

        JsonNode next = all.next();
        assertThat(next.path("revision").asLong()).as("the health-only revision is not sent on its own")
                                                  .isEqualTo(fenced).isGreaterThan(coalesced);
        assertThat(next.path("health").path("eu").path("sequence").asLong()).as("but its health is in the next")
                                                                             .isEqualTo(50);
        JsonNode configNext = config.next();
        assertThat(configNext.path("revision").asLong()).isEqualTo(fenced);
        assertThat(configNext.path("fences").has("u-ny")).isTrue();
        assertThat(health.events.poll(300, TimeUnit.MILLISECONDS)).as("health waits for its interval").isNull();
    }
}
