package io.unitas.gateway;

import static io.unitas.gateway.StaticFilesEndToEndTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.RequestHeaders;

import io.unitas.config.internal.SecretFiles;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;
import io.unitas.control.client.internal.ControlResponse;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;

/**
 * Static stability against a real control plane in a child process: the gateway follows its watch stream, keeps
 * the last good state on disk, keeps serving with it while the control plane is killed, starts from it after its
 * own restart, and catches up when the control plane is back.
 */
class ControlPlaneEndToEndTest {

    static final String TOPOLOGY = "{\"regions\":[{\"id\":\"cn\"},{\"id\":\"eu\"}]}";
    static final String RULES = """
            {"units":[{"id":"u-cn","region":"cn"},{"id":"u-eu","region":"eu"}],
             "key":{"sources":[{"header":"x-user-id"}],"transform":"mod 10000","missing":"reject"},
             "ranges":[{"range":"0~4999","unit":"u-cn"},{"range":"5000~9999","unit":"u-eu"}]}""";
    static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);
    static final ControlToken GATEWAY = ControlToken.generate("gateway-cn", Role.VIEWER);
    static final ControlToken ROTATED = ControlToken.generate("gateway-cn-2", Role.VIEWER);

    @TempDir
    Path dir;
    final Backend cnMain = new Backend("cn-main");
    final Backend euMain = new Backend("eu-main");
    Gateway gateway;
    ControlPlaneProcess control;
    long sequence;

    Gateway startGateway(int controlPort) throws Exception {
        return startGateway(controlPort, "token: " + GATEWAY.secret());
    }

    Gateway startGateway(int controlPort, String token) throws Exception {
        Path config = dir.resolve("gateway.yaml");
        Files.writeString(config, """
                region: cn
                listen: 127.0.0.1:0
                upstreams:
                  cn: {endpoints: [%s]}
                  eu: {endpoints: [%s]}
                access_log: "off"
                control_plane:
                  url: http://127.0.0.1:%d
                  %s
                  state_file: state/last-good.json
                """.formatted(cnMain.endpoint(), euMain.endpoint(), controlPort, token));
        return Gateway.start(GatewayConfig.read(config));
    }

    ControlPlaneProcess startControl(int port) {
        return ControlPlaneProcess.start(port, dir.resolve("control-data"), dir.resolve("tokens"),
                                         dir.resolve("control.log"));
    }

    static void ok(ControlResponse res) {
        assertThat(res.status()).as(res.body()).isEqualTo(200);
    }

    void report(RawClient admin, String region, boolean healthy) {
        ok(admin.send("PUT", "/api/v1/health/" + region, "{\"region\":\"" + region + "\",\"sequence\":"
                + ++sequence + ",\"observed_at\":\"" + Instant.now() + "\",\"healthy\":" + healthy
                + ",\"writable\":" + healthy + ",\"replication_lag_ms\":0,\"score\":" + (healthy ? 1 : 0)
                + ",\"reasons\":[],\"checks\":{}}", Map.of()));
    }

    AggregatedHttpResponse send(HttpMethod method, String user) {
        return WebClient.of("http://127.0.0.1:" + gateway.port())
                        .execute(RequestHeaders.builder(method, "/a").add("x-user-id", user).build())
                        .aggregate().join();
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        if (control != null) {
            control.close();
        }
        cnMain.close();
        euMain.close();
    }

    @Test
    void keepsServingItsLastGoodStateWithTheControlPlaneKilledAndAfterItsOwnRestart() throws Exception {
        Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n" + GATEWAY.fileLine() + "\n");
        control = startControl(0);
        int port = control.port;
        RawClient admin = RawClient.of(URI.create("http://127.0.0.1:" + port), ADMIN.secret());
        ok(admin.put("/api/v1/topology", TOPOLOGY, admin.get("/api/v1/state").revision()));
        ok(admin.put("/api/v1/rules", RULES, admin.get("/api/v1/state").revision()));
        report(admin, "cn", true);
        report(admin, "eu", true);
        ok(admin.post("/api/v1/fences", "{\"units\":[\"u-eu\"],\"reason\":\"switchover drill\"}"));
        long fenced = admin.get("/api/v1/state").revision();

        gateway = startGateway(port);
        eventually(() -> gateway.revision() == fenced);
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        AggregatedHttpResponse refused = send(HttpMethod.POST, "7000");
        assertThat(refused.status().code()).isEqualTo(503);
        assertThat(refused.headers().get("retry-after")).as("an operator's fence tells the default").isEqualTo("5");
        assertThat(dir.resolve("state/last-good.json")).exists();

        control.close(); // kill -9
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(send(HttpMethod.POST, "7000").status().code()).isEqualTo(503);

        gateway.close();
        gateway = startGateway(port);
        assertThat(gateway.revision()).isEqualTo(fenced);
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(send(HttpMethod.POST, "7000").status().code()).isEqualTo(503);

        control = startControl(port);
        ok(admin.send("DELETE", "/api/v1/fences/u-eu", null, Map.of()));
        report(admin, "eu", false);
        long after = admin.get("/api/v1/state").revision();
        eventually(() -> gateway.revision() == after);
        AggregatedHttpResponse failedOver = send(HttpMethod.POST, "7000");
        assertThat(failedOver.status().code()).isEqualTo(200);
        assertThat(failedOver.contentUtf8()).startsWith("backend=cn-main");
        assertThat(failedOver.headers().get("x-unitas-route")).isEqualTo("failover");
    }

    AggregatedHttpResponse get(String path) {
        return WebClient.of("http://127.0.0.1:" + gateway.port()).get(path).aggregate().join();
    }

    @Test
    void theWatchsStateIsInHealthzAndMetrics_andALostControlPlaneShowsThere() throws Exception {
        Files.writeString(dir.resolve("tokens"), ADMIN.fileLine() + "\n" + GATEWAY.fileLine() + "\n");
        control = startControl(0);
        RawClient admin = RawClient.of(URI.create("http://127.0.0.1:" + control.port), ADMIN.secret());
        ok(admin.put("/api/v1/topology", TOPOLOGY, admin.get("/api/v1/state").revision()));
        ok(admin.put("/api/v1/rules", RULES, admin.get("/api/v1/state").revision()));
        long now = admin.get("/api/v1/state").revision();
        gateway = startGateway(control.port);
        eventually(() -> gateway.revision() == now);

        AggregatedHttpResponse healthz = get("/unitas/healthz");
        assertThat(healthz.status().code()).isEqualTo(200);
        assertThat(healthz.contentUtf8()).contains("control plane watch: connected, revision " + now);
        String metrics = get("/metrics").contentUtf8();
        assertThat(metrics).contains("unitas_gateway_control_watch_connected 1.0")
                           .contains("unitas_gateway_control_watch_revision " + now + ".0")
                           .contains("unitas_gateway_control_watch_reconnects_total 0.0")
                           .contains("unitas_gateway_control_watch_callback_failures_total 0.0")
                           .contains("unitas_gateway_control_watch_last_event_age_seconds");

        control.close(); // kill -9
        eventually(() -> get("/unitas/healthz").contentUtf8().contains("control plane watch: disconnected"));
        assertThat(get("/unitas/healthz").status().code()).as("still serving its last good state").isEqualTo(200);
        eventually(() -> get("/metrics").contentUtf8().contains("unitas_gateway_control_watch_connected 0.0"));
    }

    /** Rewrites a file so that its modification time surely changes. */
    void rewrite(Path file, String text) throws Exception {
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(
                Files.getLastModifiedTime(file).toMillis() + 2000));
    }

    @Test
    void aRotatedTokenFile_isFollowed_soTheWatchGoesOnAfterTheOldTokenIsRevoked() throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, ADMIN.fileLine() + "\n" + GATEWAY.fileLine() + "\n" + ROTATED.fileLine() + "\n");
        control = startControl(0);
        RawClient admin = RawClient.of(URI.create("http://127.0.0.1:" + control.port), ADMIN.secret());
        ok(admin.put("/api/v1/topology", TOPOLOGY, admin.get("/api/v1/state").revision()));
        ok(admin.put("/api/v1/rules", RULES, admin.get("/api/v1/state").revision()));
        long now = admin.get("/api/v1/state").revision();
        Path tokenFile = SecretFiles.writePrivate(dir.resolve("gateway.token"), GATEWAY.secret() + "\n");
        gateway = startGateway(control.port, "token_file: " + tokenFile);
        eventually(() -> gateway.revision() == now);

        rewrite(tokenFile, ROTATED.secret() + "\n");
        rewrite(tokens, ADMIN.fileLine() + "\n" + ROTATED.fileLine() + "\n"); // the old token revoked
        eventually(() -> !get("/metrics").contentUtf8().contains("unitas_gateway_control_watch_reconnects_total 0.0"));
        ok(admin.post("/api/v1/fences", "{\"units\":[\"u-eu\"],\"reason\":\"after the rotation\"}"));
        long fenced = admin.get("/api/v1/state").revision();

        eventually(() -> gateway.revision() == fenced);
        assertThat(get("/unitas/healthz").contentUtf8()).contains("control plane watch: connected");
    }
}
