package io.unitas.data.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.unitas.core.Region;
import io.unitas.testkit.TricklingClient;

/**
 * The home-read server closes a caller that trickles its request's headers, and answers others meanwhile: the
 * connection's idle timeout ({@link ArmeriaHomeReadServer#IDLE_TIMEOUT}) is not extended by the bytes of an unfinished
 * head. It passed before the timeout was stated in the server; it stands so that it stays so.
 */
class HomeReadSlowHeadersTest {

    private static final String TOKEN = "s3cret-home-read-token";
    private static final String QUERY = HomeReadWire.PATH + "?unit=u1&type=account&key=k1";

    private HomeReadServer server;

    @BeforeEach
    void start() {
        server = HomeReadServer.builder().region(Region.of("cn")).owns(unit -> true).token(TOKEN)
                               .reader("account", (unit, key) -> Optional.of(
                                       new StoredEntity(1, new byte[16], Instant.EPOCH)))
                               .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aCallerTricklingItsHeaders_isClosedAtTheIdleTimeout_whileOthersAreAnswered() throws Exception {
        try (TricklingClient slow = TricklingClient.open(new InetSocketAddress("127.0.0.1", server.port()), QUERY)) {
            HttpResponse<String> other = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + QUERY))
                               .header("authorization", "Bearer " + TOKEN).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(other.statusCode()).isEqualTo(200);

            long start = System.nanoTime();
            boolean closed = slow.trickleUntilClosed(Duration.ofMillis(200), Duration.ofSeconds(60));
            System.out.printf("home-read: the trickler closed %s after %d header lines, %d ms%n", closed, slow.lines(),
                              (System.nanoTime() - start) / 1_000_000);
            assertThat(closed).as("closed by the server").isTrue();
        }
    }
}
