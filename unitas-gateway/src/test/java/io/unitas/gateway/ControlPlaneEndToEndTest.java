package io.unitas.gateway;

import static io.unitas.gateway.StaticFilesEndToEndTest.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.RequestHeaders;

/**
 * Static stability: the gateway follows the control plane's watch stream, keeps the last good state on disk,
 * keeps serving with it while the control plane is dead, starts from it after its own restart, and catches up
 * when the control plane is back.
 */
class ControlPlaneEndToEndTest {

    @TempDir
    Path dir;
    final Backend cnMain = new Backend("cn-main");
    final Backend euMain = new Backend("eu-main");
    Gateway gateway;
    WatchServer control;

    static String state(long revision, boolean euHealthy, boolean euFenced) {
        return ("{\"revision\":%d,\"updated_at\":\"2026-11-30T14:00:00Z\","
                + "\"topology\":{\"regions\":[{\"id\":\"cn\"},{\"id\":\"eu\"}]},"
                + "\"rules\":{\"units\":[{\"id\":\"u-cn\",\"region\":\"cn\"},{\"id\":\"u-eu\",\"region\":\"eu\"}],"
                + "\"key\":{\"sources\":[{\"header\":\"x-user-id\"}],\"transform\":\"mod 10000\"},"
                + "\"ranges\":[{\"range\":\"0~4999\",\"unit\":\"u-cn\"},{\"range\":\"5000~9999\",\"unit\":\"u-eu\"}]},"
                + "\"fences\":{%s},"
                + "\"health\":{\"cn\":{\"healthy\":true,\"writable\":true,\"replication_lag_ms\":0,\"score\":1,"
                + "\"reasons\":[]},\"eu\":{\"healthy\":%s,\"reasons\":[]}}}")
                .formatted(revision, euFenced ? "\"u-eu\":{\"reason\":\"switchover\",\"since\":"
                                                + "\"2026-11-30T14:00:00Z\",\"switchover\":\"s-1\"}" : "",
                           euHealthy);
    }

    Gateway startGateway(int controlPort) throws Exception {
        Path config = dir.resolve("gateway.yaml");
        Files.writeString(config, """
                region: cn
                listen: 127.0.0.1:0
                upstreams:
                  cn: {endpoints: [%s]}
                  eu: {endpoints: [%s]}
                access_log: off
                control_plane:
                  url: http://127.0.0.1:%d
                  token: t0ken
                  state_file: state/last-good.json
                """.formatted(cnMain.endpoint(), euMain.endpoint(), controlPort));
        return Gateway.start(GatewayConfig.read(config));
    }

    AggregatedHttpResponse send(HttpMethod method, String user) {
        return WebClient.of("http://127.0.0.1:" + gateway.port())
                        .execute(RequestHeaders.builder(method, "/a").add("x-user-id", user).build())
                        .aggregate().join();
    }

    @AfterEach
    void stop() {
        gateway.close();
        if (control != null) {
            control.close();
        }
        cnMain.close();
        euMain.close();
    }

    @Test
    void keepsServingItsLastGoodStateWithTheControlPlaneDeadAndAfterItsOwnRestart() throws Exception {
        control = new WatchServer(0, 5, state(5, true, true));
        int port = control.port();
        gateway = startGateway(port);
        eventually(() -> gateway.revision() == 5);
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(send(HttpMethod.POST, "7000").status().code()).isEqualTo(503);
        assertThat(dir.resolve("state/last-good.json")).exists();

        control.close();
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(send(HttpMethod.POST, "7000").status().code()).isEqualTo(503);

        gateway.close();
        gateway = startGateway(port);
        assertThat(gateway.revision()).isEqualTo(5);
        assertThat(send(HttpMethod.GET, "7000").contentUtf8()).startsWith("backend=eu-main");
        assertThat(send(HttpMethod.POST, "7000").status().code()).isEqualTo(503);

        control = new WatchServer(port, 6, state(6, false, false));
        eventually(() -> gateway.revision() == 6);
        AggregatedHttpResponse failedOver = send(HttpMethod.POST, "7000");
        assertThat(failedOver.status().code()).isEqualTo(200);
        assertThat(failedOver.contentUtf8()).startsWith("backend=cn-main");
    }
}
