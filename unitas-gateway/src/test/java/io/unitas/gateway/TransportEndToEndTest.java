package io.unitas.gateway;

import static io.unitas.gateway.GatewayEndToEndTest.ALL_UP;
import static io.unitas.gateway.GatewayEndToEndTest.http1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.SessionProtocol;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import io.unitas.core.Region;
import io.unitas.gateway.GatewayConfig.TransportKind;
import io.unitas.testkit.MutableClock;
import io.unitas.testkit.Ports;

/**
 * Every socket layer gateway.yaml can name carries the same traffic: two gateways (cn and eu) on it, each in front of
 * a real backend, serve a local user, forward a remote one, over HTTP/1.1 and h2c, and stream a large body through
 * both hops; a layer this machine lacks is refused at start with its reason, never replaced silently.
 */
class TransportEndToEndTest {

    @ParameterizedTest(name = "{0}")
    @EnumSource(TransportKind.class)
    void eachTransportServesLocalAndRemoteUsers_orIsRefusedWithItsReason(TransportKind kind) {
        Throwable missing = switch (kind) {
            case IO_URING -> IoUring.unavailabilityCause();
            case EPOLL -> Epoll.unavailabilityCause();
            case AUTO, NIO -> null;
        };
        try (Backend cnMain = new Backend("cn-main"); Backend euMain = new Backend("eu-main")) {
            int cnPort = Ports.free();
            int euPort = Ports.free();
            MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
            GatewayConfig cnConfig = GatewayEndToEndTest.config(
                    "cn", cnPort, null, 1, kind,
                    Map.of(Region.of("cn"), http1(null, cnMain.endpoint()), Region.of("eu"),
                           http1("", "127.0.0.1:" + euPort)),
                    GatewayConfig.Resilience.DEFAULTS);
            if (missing != null) {
                assertThatThrownBy(() -> GatewayServer.start(cnConfig, feed(), clock))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("transport: " + kind.id() + " is not available here");
                return;
            }
            GatewayConfig euConfig = GatewayEndToEndTest.config(
                    "eu", euPort, null, 1, kind,
                    Map.of(Region.of("eu"), http1(null, euMain.endpoint()), Region.of("cn"),
                           http1("", "127.0.0.1:" + cnPort)),
                    GatewayConfig.Resilience.DEFAULTS);
            try (Gateway cn = GatewayServer.start(cnConfig, feed(), clock);
                 Gateway eu = GatewayServer.start(euConfig, feed(), clock)) {
                String expected = switch (kind) {
                    case AUTO -> IoUring.isAvailable() ? "io_uring" : Epoll.isAvailable() ? "epoll" : "nio";
                    default -> kind.id();
                };
                assertThat(cn.transport()).isEqualTo(expected);
                assertThat(cn.timeSlices()).isEqualTo(TimeSlice.SHORTEST);
                for (SessionProtocol protocol : new SessionProtocol[] {SessionProtocol.H1C, SessionProtocol.H2C}) {
                    WebClient client = WebClient.of(protocol.uriText() + "://127.0.0.1:" + cn.port());
                    assertThat(get(client, "1500").contentUtf8()).startsWith("backend=cn-main")
                                                                 .contains("region=cn origin=cn hops=1");
                    assertThat(get(client, "7000").contentUtf8()).startsWith("backend=eu-main")
                                                                 .contains("region=eu origin=cn hops=2");
                    String big = "x".repeat(3 * 1024 * 1024);
                    RequestHeaders post = RequestHeaders.builder(HttpMethod.POST, "/upload")
                                                        .add("x-user-id", "7000").build();
                    assertThat(client.execute(HttpRequest.of(post, HttpData.ofUtf8(big))).aggregate().join()
                                     .contentUtf8()).startsWith("backend=eu-main").endsWith("body=" + big.length());
                }
            }
        }
    }

    /**
     * io_uring reads into a ring of at most 512 buffers per event loop: a request in flight on each of 700 connections
     * at once (all written before any answer is read), more connections than the ring has buffers, and every one is
     * answered. Whether the ring runs dry depends on how many reads the loop finds in one pass; either way none is lost.
     */
    @Test
    void moreConnectionsReadingAtOnceThanTheBufferRingHoldsAreAllAnswered() throws Exception {
        Assumptions.assumeTrue(IoUring.isAvailable(), () -> "io_uring: " + IoUring.unavailabilityCause());
        int connections = 700;
        try (Backend cnMain = new Backend("cn-main")) {
            GatewayConfig config = GatewayEndToEndTest.config(
                    "cn", Ports.free(), null, 1, TransportKind.IO_URING,
                    Map.of(Region.of("cn"), http1(null, cnMain.endpoint())), GatewayConfig.Resilience.DEFAULTS);
            try (Gateway cn = GatewayServer.start(config, feed(), new MutableClock(Instant.now()))) {
                assertThat(Transport.of(TransportKind.IO_URING).bufferRing()).as("this kernel offers rings").isTrue();
                List<Socket> sockets = new ArrayList<>();
                try {
                    for (int i = 0; i < connections; i++) {
                        Socket socket = new Socket("127.0.0.1", cn.port());
                        socket.setSoTimeout(30_000);
                        sockets.add(socket);
                    }
                    byte[] request = ("GET /orders HTTP/1.1\r\nhost: cn\r\nx-user-id: 1500\r\n"
                                      + "connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                    for (Socket socket : sockets) {
                        socket.getOutputStream().write(request);
                    }
                    int answered = 0;
                    for (Socket socket : sockets) {
                        String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                        if (answer.startsWith("HTTP/1.1 200") && answer.contains("backend=cn-main")) {
                            answered++;
                        }
                    }
                    assertThat(answered).isEqualTo(connections);
                } finally {
                    for (Socket socket : sockets) {
                        socket.close();
                    }
                }
            }
        }
    }

    private static FixedFeed feed() {
        return new FixedFeed(GatewayEndToEndTest.rules(false), ALL_UP);
    }

    private static AggregatedHttpResponse get(WebClient client, String user) {
        return client.execute(RequestHeaders.builder(HttpMethod.GET, "/orders").add("x-user-id", user).build())
                     .aggregate().join();
    }
}
