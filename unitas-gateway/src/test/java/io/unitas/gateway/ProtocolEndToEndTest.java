package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.unitas.core.Region;
import io.unitas.core.fence.Writes;
import io.unitas.testkit.Await;

/**
 * HTTP on the wire against a real gateway and real backends: pipelining, the h2c upgrade, 100-continue, an h2c
 * upstream, unreadable requests, the response and idle timeouts, and outlier ejection. The timeouts run on a ticker
 * the tests move, and are far longer than the backends' real delays: only the moved ticker can make them expire.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProtocolEndToEndTest {

    static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(10);
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(20);

    final Backend main = new Backend("main");
    final Backend slow = new Backend("slow");
    final Backend failing = new Backend("failing");
    final Backend good = new Backend("good");
    final Backend h2c = new Backend("h2c");
    final FakeTicker ticker = new FakeTicker();
    GatewayServer gateway;
    Gateway ejecting;
    Gateway toH2c;

    @BeforeAll
    void start() throws IOException {
        slow.delay(Duration.ofSeconds(3)); // real time: shorter than the response timeout, which only ticks
        failing.failWith(503);
        Map<Region, GatewayConfig.Upstream> upstreams = Map.of(
                Region.of("cn"), GatewayEndToEndTest.http1(null, main.endpoint()),
                Region.of("eu"), GatewayEndToEndTest.http1(null, slow.endpoint()));
        gateway = GatewayServer.start(config(upstreams, RESPONSE_TIMEOUT, 1000),
                                      new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP),
                                      ticker);
        ejecting = GatewayServer.start(config(Map.of(Region.of("cn"), GatewayEndToEndTest.http1(
                                                      null, failing.endpoint(), good.endpoint())),
                                              Duration.ofSeconds(5), 4),
                                       new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
        // named by host name, which the gateway resolves without blocking its event loop
        String byName = h2c.endpoint().replace("127.0.0.1", "localhost");
        toH2c = GatewayServer.start(config(Map.of(Region.of("cn"), new GatewayConfig.Upstream(
                                            List.of(byName), Map.of(), null, GatewayConfig.Protocol.H2C, null)),
                                           Duration.ofSeconds(5), 1000),
                                    new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP));
    }

    /** A one-worker cn gateway on a port of its own choosing. */
    static GatewayConfig config(Map<Region, GatewayConfig.Upstream> upstreams, Duration responseTimeout,
                                int ejectionMinRequests) {
        return GatewayEndToEndTest.config("cn", 0, null, 1, upstreams, GatewayEndToEndTest.resilience(
                responseTimeout, IDLE_TIMEOUT, ejectionMinRequests, Duration.ofSeconds(60)));
    }

    @AfterAll
    void stop() {
        gateway.close();
        ejecting.close();
        toH2c.close();
        h2c.close();
        main.close();
        slow.close();
        failing.close();
        good.close();
    }

    @Test
    void pipelinedRequestsAreAnsweredInTheirOrder() throws IOException {
        String request = "GET /p%d HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n\r\n";
        String all = exchange(gateway.port(), request.formatted(1) + request.formatted(2) + request.formatted(3),
                              "path=/p3");
        assertThat(all.indexOf("path=/p1")).isPositive()
                                           .isLessThan(all.indexOf("path=/p2"));
        assertThat(all.indexOf("path=/p2")).isLessThan(all.indexOf("path=/p3"));
        assertThat(all.split("HTTP/1.1 200 OK", -1)).hasSize(4);
    }

    @Test
    void aConnectionAskedToCloseIsClosedAfterItsAnswer() throws IOException {
        String close = exchange(gateway.port(), "GET /c HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\n"
                                                + "connection: close\r\n\r\n", null);
        assertThat(close).startsWith("HTTP/1.1 200 OK").containsIgnoringCase("connection: close")
                         .contains("path=/c");
        String http10 = exchange(gateway.port(), "GET /old HTTP/1.0\r\nhost: gw\r\nx-user-id: 100\r\n\r\n", null);
        assertThat(http10).contains(" 200 OK").doesNotContainIgnoringCase("transfer-encoding: chunked")
                          .contains("path=/old");
    }

    @Test
    void anUpgradeToH2cIsServedOverHttp2AndExpectContinueIsHonoured() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        URI uri = URI.create("http://127.0.0.1:" + gateway.port() + "/upgrade");
        HttpResponse<String> upgraded = client.send(HttpRequest.newBuilder(uri).header("x-user-id", "100").build(),
                                                    HttpResponse.BodyHandlers.ofString());
        assertThat(upgraded.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(upgraded.body()).startsWith("backend=main method=GET path=/upgrade");

        HttpClient http1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> continued = http1.send(
                HttpRequest.newBuilder(uri).header("x-user-id", "100").header("idempotency-key", "k1")
                           .expectContinue(true).POST(HttpRequest.BodyPublishers.ofString("x".repeat(100_000)))
                           .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(continued.statusCode()).isEqualTo(200);
        assertThat(continued.body()).startsWith("backend=main method=POST").endsWith("body=100000");
    }

    @Test
    void aFirstRequestWithABodyThatAsksForH2c_isServedOverHttp11_notRefusedAs413() throws Exception {
        // the JDK's default client asks for h2c on a new connection's first request, POSTs included; the upgrade
        // would have to hold the whole body first, so the gateway ignores the ask (RFC 9110 7.8) and serves it
        HttpClient client = HttpClient.newHttpClient();
        URI uri = URI.create("http://127.0.0.1:" + gateway.port() + "/deposits");
        HttpResponse<String> posted = client.send(
                HttpRequest.newBuilder(uri).header("x-user-id", "100").header("idempotency-key", "k-h2c")
                           .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":5}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(posted.statusCode()).as(posted.body()).isEqualTo(200);
        assertThat(posted.body()).startsWith("backend=main method=POST path=/deposits").endsWith("body=12");
    }

    @Test
    void anHttp1RequestGoesOnAsAnHttp2StreamToAnH2cUpstreamNamedByHostNameBodyAndAll() throws Exception {
        HttpClient http1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create("http://127.0.0.1:" + toH2c.port() + "/upload");
        for (int i = 0; i < 3; i++) { // one connection upstream, a stream per request
            HttpResponse<String> posted = http1.send(
                    HttpRequest.newBuilder(uri).header("x-user-id", "100")
                               .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[100_000])).build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> got = http1.send(HttpRequest.newBuilder(uri).header("x-user-id", "100").build(),
                                                  HttpResponse.BodyHandlers.ofString());

            assertThat(posted.statusCode()).isEqualTo(200);
            assertThat(posted.body()).startsWith("backend=h2c method=POST path=/upload unit=u-cn")
                                     .endsWith("protocol=h2c body=100000");
            assertThat(got.body()).startsWith("backend=h2c method=GET").endsWith("protocol=h2c body=0");
            assertThat(got.headers().firstValue("x-unitas-served-by")).hasValue("cn");
            assertThat(got.headers().firstValue("x-http2-stream-id")).isEmpty();
        }
    }

    @Test
    void anUnreadableRequestIsA400ProblemAndTheConnectionCloses() throws IOException {
        String badLength = "POST /x HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\ncontent-length: ten\r\n\r\n";
        String answer = exchange(gateway.port(), badLength, null);
        assertThat(answer).startsWith("HTTP/1.1 400 Bad Request").contains("urn:unitas:problem:bad-request");
    }

    @Test
    void headersTooLargeAre431_asAProblem() throws IOException {
        String bigHeader = "GET /x HTTP/1.1\r\nhost: gw\r\nx-user-id: 100\r\nx-big: " + "a".repeat(70_000)
                           + "\r\n\r\n";

        assertThat(exchange(gateway.port(), bigHeader, null))
                .startsWith("HTTP/1.1 431 Request Header Fields Too Large")
                .contains("urn:unitas:problem:request-header-fields-too-large");
    }

    @Test
    void anUpstreamSlowerThanTheResponseTimeoutIsA504() throws Exception {
        int before = slow.gets();
        CompletableFuture<HttpResponse<String>> answer = HttpClient.newHttpClient().sendAsync(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/slow"))
                           .header("x-user-id", "7000").build(), HttpResponse.BodyHandlers.ofString());
        await("the slow backend has the request", () -> slow.gets() > before);

        ticker.advance(RESPONSE_TIMEOUT.minusMillis(1));
        gateway.checkTimeouts();
        assertThat(gateway.exchangesInFlight()).isEqualTo(1);
        ticker.advance(Duration.ofMillis(1));
        gateway.checkTimeouts();

        HttpResponse<String> res = answer.get(30, TimeUnit.SECONDS); // the backend's own answer would be a 200
        assertThat(res.statusCode()).isEqualTo(504);
        assertThat(res.body()).contains("urn:unitas:problem:upstream-timeout").contains("region eu");
    }

    @Test
    void aStreamingAnswerOutlastsTheResponseTimeoutWhileItsPiecesKeepComing() throws Exception {
        HttpResponse<Stream<String>> res = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/tap"))
                           .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(res.statusCode()).isEqualTo(200);
        Iterator<String> lines = res.body().iterator();

        Duration pause = IDLE_TIMEOUT.minusSeconds(1); // each pause under the idle timeout, their sum past the response's
        for (int i = 0; i < 6; i++) {
            ticker.advance(pause);
            gateway.checkTimeouts();
            assertThat(gateway.exchangesInFlight()).as("after pause %d", i).isEqualTo(1);
            main.tapWrite("piece " + i);
            assertThat(lines.next()).isEqualTo("piece " + i);
        }
        main.tapClose();

        assertThat(lines.hasNext()).isFalse();
        assertThat(pause.multipliedBy(6)).isGreaterThan(RESPONSE_TIMEOUT);
    }

    @Test
    void aStreamingAnswerThatStallsPastTheIdleTimeoutIsCut() throws Exception {
        HttpResponse<Stream<String>> res = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port() + "/tap"))
                           .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofLines());
        Iterator<String> lines = res.body().iterator();
        main.tapWrite("piece 0");
        assertThat(lines.next()).isEqualTo("piece 0");

        ticker.advance(IDLE_TIMEOUT.minusMillis(1));
        gateway.checkTimeouts();
        assertThat(gateway.exchangesInFlight()).isEqualTo(1);
        ticker.advance(Duration.ofMillis(1));
        gateway.checkTimeouts();

        assertThat(gateway.exchangesInFlight()).isZero();
        main.tapWrite("piece 1"); // too late: the client's connection was cut
        assertThatThrownBy(() -> lines.forEachRemaining(line -> { }))
                .hasRootCauseInstanceOf(IOException.class); // a cut body, never taken for a whole one
        main.tapClose();
    }

    /** Polls {@code condition} for real I/O to happen, failing after 30 s. */
    static void await(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(30), condition);
    }

    @Test
    void anEndpointAnsweringGatewayErrorsIsEjected() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> res = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ejecting.port() + "/e"))
                               .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(200);
        }
        // Round-robin sends every first attempt to the failing endpoint until 4 failures eject it; 20 without.
        assertThat(failing.gets()).isBetween(4, 5);
        assertThat(good.gets()).isEqualTo(20);
    }

    /**
     * Writes {@code request} raw and reads until {@code until} shows up, or the connection closes (a read timing out
     * fails the test).
     */
    private static String exchange(int port, String request, String until) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                got.write(buf, 0, n);
                if (until != null && got.toString(StandardCharsets.US_ASCII).contains(until)) {
                    break;
                }
            }
            return got.toString(StandardCharsets.US_ASCII);
        }
    }
}
