package io.unitas.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.sun.net.httpserver.HttpServer;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;

import io.unitas.core.health.ProbeResult;
import io.unitas.testkit.Ports;

class NetworkProbesTest {

    private static HttpServer http;
    private static Server grpc;
    private static final HealthStatusManager GRPC_HEALTH = new HealthStatusManager();

    @BeforeAll
    static void startServers() throws IOException {
        http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            int status = Integer.parseInt(path.substring(1, 4));
            byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        http.start();
        GRPC_HEALTH.setStatus("shop.Inventory", ServingStatus.SERVING);
        GRPC_HEALTH.setStatus("shop.Payments", ServingStatus.NOT_SERVING);
        grpc = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(GRPC_HEALTH.getHealthService()).build().start();
    }

    @AfterAll
    static void stopServers() throws InterruptedException {
        http.stop(0);
        grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private static ProbeResult probe(ProbeConfig config) {
        // Generous: it bounds only a failing probe, and a cold JVM on a busy machine is slow to its first answer.
        try (Probe probe = Probe.of(config)) {
            return probe.probe(Duration.ofSeconds(10));
        }
    }

    private static ProbeResult http(String path, String status, String bodyContains) {
        return probe(new ProbeConfig(ProbeConfig.Kind.HTTP, "http://127.0.0.1:" + http.getAddress().getPort() + path,
                ProbeConfig.Role.ANY, Duration.ZERO, false, status, bodyContains, ""));
    }

    @ParameterizedTest(name = "GET {0} expecting {1} and body ''{2}'': {3}")
    @CsvSource(delimiter = '|', value = {
            "/200|200-399||true|HTTP 200",
            "/301|200-399||true|HTTP 301",
            "/503|200-399||false|HTTP 503 (expected: 200-399)",
            "/404|200-299,404||true|HTTP 404",
            "/200|200|\"UP\"|true|HTTP 200",
            "/200|200|DOWN|false|HTTP 200, body does not contain 'DOWN' in its first 5120 bytes",
    })
    void httpJudgesTheStatusAndOptionallyTheBody(String path, String status, String body, boolean up, String reason) {
        ProbeResult result = http(path, status, body == null ? "" : body);

        assertThat(result.up()).isEqualTo(up);
        assertThat(result.reason()).isEqualTo(reason);
    }

    @Test
    void anHttpProbeKeepsOneClient_notOneSelectorThreadPerProbe() {
        ProbeConfig config = ProbeConfig.of(ProbeConfig.Kind.HTTP,
                                            "http://127.0.0.1:" + http.getAddress().getPort() + "/200");
        try (Probe probe = Probe.of(config)) {
            assertThat(probe.probe(Duration.ofSeconds(2)).up()).isTrue();
            Set<Thread> before = selectorThreads();

            for (int i = 0; i < 10; i++) {
                assertThat(probe.probe(Duration.ofSeconds(2)).up()).isTrue();
            }

            Set<Thread> created = selectorThreads();
            created.removeAll(before);
            assertThat(created).as("selector threads started by ten more probes").isEmpty();
        }
    }

    /** The JDK HTTP client's selector threads alive now: one per client until the client is closed or collected. */
    private static Set<Thread> selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("HttpClient-") && t.getName().endsWith("-SelectorManager"))
                .collect(Collectors.toCollection(HashSet::new));
    }

    @Test
    void httpToAClosedPortIsRefused() {
        ProbeResult result = probe(ProbeConfig.of(ProbeConfig.Kind.HTTP,
                "http://127.0.0.1:" + Ports.free() + "/health"));

        assertThat(result.reason()).matches("cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused");
    }

    @Test
    void tcpIsUpWhenAConnectionIsAcceptedAndDownWhenRefused() {
        assertThat(probe(ProbeConfig.of(ProbeConfig.Kind.TCP, "127.0.0.1:" + http.getAddress().getPort())).up())
                .isTrue();
        ProbeResult refused = probe(ProbeConfig.of(ProbeConfig.Kind.TCP, "127.0.0.1:" + Ports.free()));
        assertThat(refused.reason()).matches("cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused");
    }

    @ParameterizedTest(name = "gRPC Check ''{0}'': {1}")
    @CsvSource(delimiter = '|', value = {
            "shop.Inventory|true|SERVING",
            "shop.Payments|false|service 'shop.Payments' is NOT_SERVING (expected: SERVING)",
            "shop.Nope|false|service 'shop.Nope' unknown to the server (NOT_FOUND)",
    })
    void grpcChecksTheNamedService(String service, boolean up, String reason) {
        ProbeResult result = probe(new ProbeConfig(ProbeConfig.Kind.GRPC, "127.0.0.1:" + grpc.getPort(),
                ProbeConfig.Role.ANY, Duration.ZERO, false, ProbeConfig.DEFAULT_STATUS, "", service));

        assertThat(result.up()).as(result.reason()).isEqualTo(up);
        assertThat(result.reason()).isEqualTo(reason);
    }

    @Test
    void grpcToAClosedPortIsDownWithoutAStackTrace() {
        ProbeResult result = probe(ProbeConfig.of(ProbeConfig.Kind.GRPC, "127.0.0.1:" + Ports.free()));

        assertThat(result.up()).isFalse();
        assertThat(result.reason()).matches("cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused");
    }

    @Test
    void aTargetThatIsNotAUrlIsRejectedSayingWhatWasExpected() {
        assertThatThrownBy(() -> Probe.of(ProbeConfig.of(ProbeConfig.Kind.POSTGRES, "localhost:5432")))
                .hasMessage("target: 'localhost:5432' (expected: "
                            + "postgresql://[user[:password]@]host[:port][/database][?param=value])");
        assertThatThrownBy(() -> Probe.of(ProbeConfig.of(ProbeConfig.Kind.TCP, "localhost")))
                .hasMessage("target: 'localhost' (expected: host:port or tcp://host:port)");
    }
}
