package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.unitas.testkit.TricklingClient;

/**
 * The health agent's HTTP port closes a client that trickles its request's headers, and answers others meanwhile: the
 * connection's idle timeout ({@link DefaultHealthServer#HTTP_IDLE_TIMEOUT}) is not extended by the bytes of an
 * unfinished head. It passed before the timeout was stated in the server; it stands so that it stays so.
 */
class HttpSlowHeadersTest {

    private ServerSocket probed;
    private DefaultHealthServer server;

    @BeforeEach
    void start() throws IOException {
        probed = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        String yaml = "region: eu\nlisten: {address: 127.0.0.1, http: 0, grpc: 0}\n"
                      + "checks:\n  - {name: a, kind: tcp, target: '127.0.0.1:" + probed.getLocalPort() + "'}\n";
        server = DefaultHealthServer.start(HealthConfig.parse("health.yaml", yaml), Clock.systemUTC(),
                                           UnitLagSource.NONE, GrpcConnections.DEFAULT);
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        probed.close();
    }

    @Test
    void aClientTricklingItsHeaders_isClosedAtTheIdleTimeout_whileOthersAreAnswered() throws Exception {
        try (TricklingClient slow = TricklingClient.open(new InetSocketAddress("127.0.0.1", server.httpPort()),
                                                         "/livez")) {
            HttpResponse<String> other = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.httpPort() + "/livez")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(other.statusCode()).isEqualTo(200);

            long start = System.nanoTime();
            boolean closed = slow.trickleUntilClosed(Duration.ofMillis(200), Duration.ofSeconds(60));
            System.out.printf("health HTTP: the trickler closed %s after %d header lines, %d ms%n", closed,
                              slow.lines(), (System.nanoTime() - start) / 1_000_000);
            assertThat(closed).as("closed by the server").isTrue();
        }
    }
}
