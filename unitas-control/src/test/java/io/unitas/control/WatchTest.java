package io.unitas.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WatchTest {

    @TempDir
    Path dir;

    private ControlServer server;
    private RawClient operator;

    @BeforeEach
    void start() {
        server = ControlServer.builder().port(0).dataDir(dir).tokens(Fixtures.tokensFile(dir)).start();
        RawClient admin = RawClient.of(server.uri(), Fixtures.ADMIN.secret());
        Fixtures.seed(admin, java.time.Instant.now(), 0);
        operator = RawClient.of(server.uri(), Fixtures.OPERATOR.secret());
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private void changeFences(int times) {
        for (int i = 0; i < times; i++) {
            ControlResponse res = i % 2 == 0 ? operator.post("/api/v1/fences", "{\"units\":[\"u-ny\"]}")
                                             : operator.send("DELETE", "/api/v1/fences/u-ny", null, java.util.Map.of());
            assertThat(res.status()).isEqualTo(200);
        }
    }

    private static List<Long> take(BlockingQueue<ControlClient.WatchEvent> queue, int n) throws Exception {
        List<Long> revisions = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ControlClient.WatchEvent e = queue.poll(10, TimeUnit.SECONDS);
            assertThat(e).as("event " + i + " of " + n).isNotNull();
            assertThat(e.json()).contains("\"revision\":" + e.revision());
            revisions.add(e.revision());
        }
        return revisions;
    }

    @Test
    void aWatcherGetsTheCurrentStateThenEveryNewRevisionInOrder() throws Exception {
        long now = server.revision();
        BlockingQueue<ControlClient.WatchEvent> events = new LinkedBlockingQueue<>();
        try (AutoCloseable watch = RawClient.of(server.uri(), Fixtures.VIEWER.secret()).watch(-1, events::add)) {
            assertThat(take(events, 1)).containsExactly(now);
            changeFences(20);
            assertThat(take(events, 20)).containsExactlyElementsOf(LongStream.rangeClosed(now + 1, now + 20)
                                                                             .boxed().toList());
        }
    }

    @Test
    void afterAReconnect_everyMissedRevisionArrivesInOrder_fromSinceOrLastEventId() throws Exception {
        long seen = server.revision();
        changeFences(15);
        List<Long> missed = LongStream.rangeClosed(seen + 1, seen + 15).boxed().toList();

        BlockingQueue<ControlClient.WatchEvent> events = new LinkedBlockingQueue<>();
        try (AutoCloseable watch = RawClient.of(server.uri(), Fixtures.VIEWER.secret()).watch(seen, events::add)) {
            assertThat(take(events, 15)).containsExactlyElementsOf(missed);
        }

        HttpRequest request = HttpRequest.newBuilder(server.uri().resolve("/api/v1/watch"))
                .header("Authorization", "Bearer " + Fixtures.VIEWER.secret())
                .header("Last-Event-ID", Long.toString(seen)).build();
        HttpResponse<java.util.stream.Stream<String>> res = HttpClient.newHttpClient()
                .send(request, HttpResponse.BodyHandlers.ofLines());
        assertThat(res.headers().firstValue("content-type")).hasValue("text/event-stream");
        List<Long> resumed = new ArrayList<>();
        try (java.util.stream.Stream<String> lines = res.body()) {
            java.util.Iterator<String> it = lines.iterator();
            while (resumed.size() < 15 && it.hasNext()) {
                String line = it.next();
                if (line.startsWith("id: ")) {
                    resumed.add(Long.parseLong(line.substring(4)));
                }
            }
        }
        assertThat(resumed).containsExactlyElementsOf(missed);
    }

    @Test
    void watchingNeedsAToken() {
        ControlResponse res = RawClient.of(server.uri(), null).get("/api/v1/watch");

        assertThat(res.status()).isEqualTo(401);
    }
}
