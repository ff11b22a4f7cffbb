package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The DNS server's {@code /metrics} against clients that trickle, pipeline and never read. */
class MetricsEndpointTest {

    @TempDir
    Path dir;
    private final FakeTicker ticker = new FakeTicker();
    private NettyDnsServer server;

    @BeforeEach
    void start() {
        DnsConfig config = DnsConfig.read(ZoneFiles.write(dir));
        server = NettyDnsServer.start(config, config.source().feed(io.unitas.core.fence.Writes.DEFAULT, false),
                                      java.time.Clock.systemUTC(), ticker);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aClientTricklingItsRequestHead_blocksNoScrape_andIsClosedAtTheHeaderDeadline() throws Exception {
        try (Socket trickler = open()) {
            trickler.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: dns\r\n".getBytes(
                    StandardCharsets.US_ASCII)); // and never the blank line that ends the head
            trickler.getOutputStream().flush();
            assertThat(scrape().statusCode()).isEqualTo(200); // a 10 s timeout: the old endpoint waited forever
            ticker.advance(Duration.ofSeconds(5));
            trickler.getOutputStream().write('X');
            server.metricsEndpoint().checkDeadlines();
            assertThat(closedByServer(trickler)).as("closed before its deadline").isFalse();
            ticker.advance(MetricsEndpoint.DEADLINE.minusSeconds(5));
            server.metricsEndpoint().checkDeadlines();
            assertThat(closedByServer(trickler)).as("closed at its deadline").isTrue();
        }
    }

    @Test
    void aClientPipeliningScrapesWithoutReading_isAnsweredOnce_thenClosed() throws Exception {
        try (Socket s = open()) {
            s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: dns\r\n\r\n".repeat(2_000).getBytes(
                    StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            String all = readToEnd(s.getInputStream());
            assertThat(all.split("HTTP/1.1 200", -1)).hasSize(2); // one response, then the end of the stream
            assertThat(all).containsIgnoringCase("connection: close");
        }
        assertThat(scrape().body()).contains("unitas_dns_tcp_connections");
    }

    @Test
    void onlyGetOfMetricsIsServed_andAnOversizedHeadIsRefused() throws Exception {
        assertThat(raw("GET /other HTTP/1.1\r\nHost: dns\r\n\r\n")).startsWith("HTTP/1.1 404");
        assertThat(raw("POST /metrics HTTP/1.1\r\nHost: dns\r\nContent-Length: 0\r\n\r\n"))
                .startsWith("HTTP/1.1 405");
        assertThat(raw("GET /metrics HTTP/1.1\r\nHost: dns\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n"))
                .startsWith("HTTP/1.1 431");
    }

    private Socket open() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.metricsPort());
        s.setSoTimeout(10_000);
        return s;
    }

    private String raw(String request) throws IOException {
        try (Socket s = open()) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            return readToEnd(s.getInputStream());
        }
    }

    private HttpResponse<String> scrape() throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.metricsPort() + "/metrics"))
                           .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String readToEnd(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            in.transferTo(out);
        } catch (java.net.SocketException reset) {
            // closed with requests unread: what was sent before is what counts
        }
        return out.toString(StandardCharsets.US_ASCII);
    }

    /** Whether the server closed {@code s}: its next read ends the stream (or is reset) instead of timing out. */
    private static boolean closedByServer(Socket s) throws IOException {
        int before = s.getSoTimeout();
        s.setSoTimeout(1_000);
        try {
            return s.getInputStream().read() == -1;
        } catch (java.net.SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        } finally {
            s.setSoTimeout(before);
        }
    }
}
