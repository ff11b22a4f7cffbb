package io.unitas.gateway;

import static io.unitas.gateway.StaticFilesEndToEndTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.RequestHeaders;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;

/**
 * A gateway whose every connection to a peer region's upstream is refused (a real port nothing listens on): it
 * shows the region unreachable in {@code /metrics} and {@code /unitas/healthz}, reports it to a real control plane
 * with its own token, and clears it at the next connection made.
 */
class UnreachableRegionTest {

    static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);
    static final ControlToken GATEWAY_EU = ControlToken.generate("gateway-eu", Role.OBSERVER, "eu");

    @TempDir
    Path dir;
    final Backend euMain = new Backend("eu-main");
    ControlServer control;
    Gateway gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (control != null) {
            control.close();
        }
        euMain.close();
    }

    @Test
    void everyConnectionToAPeerRefused_isShownAndReported_andTheNextConnectionMadeClearsIt() throws Exception {
        Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n" + GATEWAY_EU.fileLine() + "\n");
        control = ControlServer.builder().port(0).dataDir(dir.resolve("control")).tokens(dir.resolve("tokens"))
                               .start();
        RawClient admin = RawClient.of(control.uri(), ADMIN.secret());
        ok(admin.put("/api/v1/topology", ControlPlaneEndToEndTest.TOPOLOGY, admin.state().revision()));
        ok(admin.put("/api/v1/rules", ControlPlaneEndToEndTest.RULES, admin.state().revision()));
        report(admin, "cn", 1);
        report(admin, "eu", 1);
        long revision = admin.state().revision();
        int refusing = freePort();
        Files.writeString(dir.resolve("gateway.yaml"), """
                region: eu
                listen: 127.0.0.1:0
                upstreams:
                  cn: {endpoints: ['127.0.0.1:%d']}
                  eu: {endpoints: [%s]}
                timeouts: {connect: 1s, response: 2s}
                access_log: "off"
                control_plane:
                  url: %s
                  token: %s
                  state_file: state.json
                """.formatted(refusing, euMain.endpoint(), control.uri(), GATEWAY_EU.secret()));
        gateway = Gateway.start(GatewayConfig.read(dir.resolve("gateway.yaml")));
        eventually(() -> gateway.revision() == revision);
        assertThat(get("/metrics")).contains("unitas_gateway_region_unreachable{region=\"cn\"} 0.0");

        AggregatedHttpResponse refused = send("1000"); // a cn user: routed to cn, whose upstream refuses
        assertThat(refused.status().code()).isEqualTo(502);
        assertThat(send("7000").contentUtf8()).startsWith("backend=eu-main");

        assertThat(get("/metrics")).contains("unitas_gateway_region_unreachable{region=\"cn\"} 1.0")
                                   .contains("unitas_gateway_region_unreachable{region=\"eu\"} 0.0");
        assertThat(get("/unitas/healthz")).contains("unreachable from here: cn (every upstream tried");
        eventually(() -> get("/metrics").matches("(?s).*unitas_gateway_unreachable_reports_total\\{region=\"cn\","
                                                 + "result=\"sent\"} [1-9].*"));
        assertThat(admin.get("/metrics").body()).containsPattern(
                "unitas_control_unreachable_reports_total\\{observer=\"eu\",region=\"cn\",result=\"counted\"} "
                + "[1-9]");

        try (ServerSocket listening = new ServerSocket()) { // something answers at cn's address again
            listening.setReuseAddress(true);
            listening.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), refusing));
            CompletableFuture<AggregatedHttpResponse> pending = WebClient.of("http://127.0.0.1:" + gateway.port())
                    .execute(RequestHeaders.builder(HttpMethod.GET, "/a").add("x-user-id", "1000").build())
                    .aggregate();
            eventually(() -> get("/metrics").contains("unitas_gateway_region_unreachable{region=\"cn\"} 0.0"));
            assertThat(get("/unitas/healthz")).doesNotContain("unreachable from here");
            pending.join(); // the connection was made; nothing answers on it: the response timeout ends it
        }
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static void ok(io.unitas.control.client.internal.ControlResponse res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }

    static void report(RawClient admin, String region, long sequence) {
        ok(admin.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\",\"sequence\":" + sequence
                + ",\"observed_at\":\"" + Instant.now() + "\",\"healthy\":true,\"writable\":true,"
                + "\"replication_lag_ms\":0,\"score\":1,\"reasons\":[],\"checks\":{}}", Map.of()));
    }

    AggregatedHttpResponse send(String user) {
        return WebClient.of("http://127.0.0.1:" + gateway.port())
                        .execute(RequestHeaders.builder(HttpMethod.GET, "/a").add("x-user-id", user).build())
                        .aggregate().join();
    }

    String get(String path) {
        return WebClient.of("http://127.0.0.1:" + gateway.port()).get(path).aggregate().join().contentUtf8();
    }
}
