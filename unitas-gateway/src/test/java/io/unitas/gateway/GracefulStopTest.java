package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.unitas.core.Region;

/**
 * A stop waits for the exchanges in flight up to {@link GatewayServer#DRAIN_NANOS} of the gateway's ticker, then
 * cuts them: on a ticker the test moves, the wait ends when the ticker passes, not after 5 s of the wall clock.
 */
class GracefulStopTest {

    final Backend backend = new Backend("tap");
    final FakeTicker ticker = new FakeTicker();

    @AfterEach
    void stop() {
        backend.close();
    }

    @Test
    void aStopWaitsForAnExchangeInFlight_untilTheTickerPassesTheDrainTime() throws Exception {
        GatewayConfig.Upstream cn = GatewayEndToEndTest.http1(null, backend.endpoint());
        GatewayServer gateway = GatewayServer.start(
                ProtocolEndToEndTest.config(Map.of(Region.of("cn"), cn), Duration.ofSeconds(10), 1000),
                new FixedFeed(GatewayEndToEndTest.rules(false), GatewayEndToEndTest.ALL_UP), ticker);
        int port = gateway.port();
        HttpResponse<Stream<String>> res = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/tap"))
                           .header("x-user-id", "100").build(), HttpResponse.BodyHandlers.ofLines());
        Iterator<String> lines = res.body().iterator();
        backend.tapWrite("piece 0");
        assertThat(lines.next()).isEqualTo("piece 0");

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(gateway::close);
        ProtocolEndToEndTest.await("the gateway takes no more connections", () -> !accepts(port));
        assertThatThrownBy(() -> stopped.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(gateway.exchangesInFlight()).isEqualTo(1);

        ticker.advance(Duration.ofNanos(GatewayServer.DRAIN_NANOS));

        stopped.get(3, TimeUnit.SECONDS); // the wall clock's 5 s are far off
        assertThatThrownBy(() -> lines.forEachRemaining(line -> { }))
                .hasRootCauseInstanceOf(IOException.class); // cut, never taken for a whole body
        backend.tapClose();
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
