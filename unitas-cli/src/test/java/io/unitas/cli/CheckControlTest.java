package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import io.unitas.control.ControlServer;
import io.unitas.control.ControlToken;
import io.unitas.control.Role;
import io.unitas.control.client.ControlClient;
import io.unitas.control.client.internal.RawClient;

/** {@code unitas check consistency --control}: the measured lag read from a real control plane's state, in-process. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckControlTest {

    private static final ControlToken VIEWER = ControlToken.generate("ci", Role.VIEWER);
    private static final ControlToken ADMIN = ControlToken.generate("root", Role.ADMIN);

    @TempDir
    static Path dir;

    private ControlServer server;
    private String topology;
    private String rules;

    @BeforeAll
    void start() throws Exception {
        Path tokens = Files.writeString(dir.resolve("tokens"), VIEWER.fileLine() + "\n" + ADMIN.fileLine() + "\n");
        server = ControlServer.builder().port(0).dataDir(dir.resolve("data")).tokens(tokens).start();
        topology = Cli.root().resolve("examples/topology.yaml").toString();
        rules = Cli.root().resolve("examples/rules.yaml").toString();
        RawClient admin = RawClient.of(server.uri(), ADMIN.secret());
        assertThat(Cli.run("ctl", "apply", "-f", topology, "--server", server.uri().toString(), "--token",
                           ADMIN.secret()).exit()).isZero();
        // us reports that u-newyork's changes reach eu 300 ms late.
        assertThat(admin.send("PUT", "/api/v1/health/us", "{\"region\":\"us\",\"sequence\":1,"
                + "\"observed_at\":\"2026-12-04T20:00:00Z\",\"healthy\":true,\"writable\":true,"
                + "\"replication_lag_ms\":-1,\"score\":1,\"reasons\":[],\"checks\":{},\"unit_lag\":{\"u-newyork\":"
                + "{\"eu\":{\"lag_ms\":300,\"measured_at\":\"2026-12-04T20:00:00Z\"}}}}", Map.of()).ok()).isTrue();
    }

    @AfterAll
    void stop() {
        server.close();
    }

    private Cli check(String budget, String url, String token) {
        String declarations = Cli.file(dir, "budget-" + budget + ".yaml", """
                entities:
                  recommendations:
                    consistency: bounded-staleness
                    staleness_budget: %s
                """.formatted(budget));
        return Cli.run("check", "consistency", "--declarations", declarations, "--topology", topology,
                       "--rules", rules, "--control", url, "--token", token);
    }

    @Test
    void budgetBelowTheReportedLag_isAViolation() {
        Cli run = check("100ms", server.uri().toString(), VIEWER.secret());
        assertThat(run.exit()).as(run.toString()).isEqualTo(1);
        assertThat(run.out()).contains("recommendations promises reads at most 100 ms stale, but unit u-newyork "
                                       + "from us to eu lags 300 ms").contains("[staleness-budget]");
    }

    @Test
    void budgetCoveringTheReportedLag_passes() {
        Cli run = check("1s", server.uri().toString(), VIEWER.secret());
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.out()).endsWith("largest measured lag 300 ms (unit u-newyork from us to eu)\n");
    }

    @Test
    void wrongToken_exit5_sayingWhy() {
        Cli run = check("1s", server.uri().toString(), "not-a-token");
        assertThat(run.exit()).isEqualTo(5);
        assertThat(run.err()).startsWith("unitas check consistency: " + server.uri() + "/api/v1/state: 401");
    }

    @Test
    void unreachableControlPlane_exit5() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Cli run = check("1s", "http://127.0.0.1:" + port, VIEWER.secret());
        assertThat(run.exit()).as(run.toString()).isEqualTo(5);
        assertThat(run.err()).startsWith("unitas check consistency: http://127.0.0.1:" + port + ": ");
    }
}
