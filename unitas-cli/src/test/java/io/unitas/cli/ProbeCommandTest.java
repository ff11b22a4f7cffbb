package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.unitas.testkit.Ports;
import io.unitas.testkit.PostgresCluster;

class ProbeCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(Cli cli) throws IOException {
        return JSON.readTree(cli.out());
    }

    @Test
    void aHealthyPrimaryPrintsItsChecksAndExitsZero() throws IOException {
        Cli cli = Cli.run("probe", "postgres", PostgresCluster.shared().primary().uri(), "--role", "primary");

        assertThat(cli.exit()).as(cli.err()).isZero();
        JsonNode out = json(cli);
        assertThat(out.get("healthy").asBoolean()).isTrue();
        assertThat(out.at("/checks/postgres/details/role").asText()).isEqualTo("primary");
        assertThat(out.get("reasons")).isEmpty();
    }

    @Test
    void aStandbyWithinMaxLagIsHealthy() throws IOException {
        Cli cli = Cli.run("probe", "postgres", PostgresCluster.shared().standby().uri(), "--role", "standby",
                          "--max-lag", "5s");

        assertThat(json(cli).at("/checks/postgres/details/role").asText()).isEqualTo("standby");
        assertThat(cli.exit()).isZero();
    }

    @Test
    void aRefusedConnectionIsAnUnhealthyResultWithExitOne() throws IOException {
        int port = Ports.free();
        Cli cli = Cli.run("probe", "postgres", "postgresql://127.0.0.1:" + port + "/test", "--timeout", "1s");

        assertThat(cli.exit()).isEqualTo(1);
        assertThat(json(cli).get("reasons").get(0).asText())
                .isEqualTo("postgres: cannot connect to 127.0.0.1:" + port + ": connection refused");
        assertThat(cli.err()).isEmpty();
    }

    @Test
    void theJdbcFormsUserParameterIsTheUserConnectedAs() {
        int port = PostgresCluster.shared().primary().port();

        Cli cli = Cli.run("probe", "postgres", "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres");

        assertThat(cli.exit()).as(cli.out()).isZero();
    }

    @Test
    void aTargetParameterThatCannotBePassedOnExitsTwoNamingIt() {
        Cli cli = Cli.run("probe", "redis", "redis://127.0.0.1:6379?tls=yes");

        assertThat(cli.exit()).isEqualTo(2);
        assertThat(cli.err()).isEqualTo("unitas probe: target: parameter 'tls' unknown to the Redis probe "
                                        + "(expected one of: db, client_name, verify_peer)\n");
    }

    @Test
    void aTargetsPassword_isNeverPrinted() {
        Cli refused = Cli.run("probe", "postgres", "postgresql://app:hunter2@h1,h2/db");

        assertThat(refused.exit()).isEqualTo(2);
        assertThat(refused.err()).startsWith("unitas probe: target: 'postgresql://***@h1,h2/db': several hosts")
                                 .doesNotContain("hunter2");
        assertThat(refused.out()).doesNotContain("hunter2");
    }

    @Test
    void badArgumentsExitTwoWithOneLine() {
        Cli kind = Cli.run("probe", "pgsql", "postgresql://127.0.0.1/test");
        Cli target = Cli.run("probe", "postgres", "localhost:5432");
        Cli timeout = Cli.run("probe", "tcp", "127.0.0.1:1", "--timeout", "soon");

        assertThat(kind.exit()).isEqualTo(2);
        assertThat(kind.err()).isEqualTo("unitas probe: kind: 'pgsql' (expected one of: postgres, mysql, redis, "
                                         + "http, tcp, grpc)\n");
        assertThat(target.exit()).isEqualTo(2);
        assertThat(target.err()).startsWith("unitas probe: target: 'localhost:5432' (expected: postgresql://");
        assertThat(timeout.exit()).isEqualTo(2);
        assertThat(timeout.err()).startsWith(
                "Invalid value for option '--timeout': 'soon' (expected: a duration like 500ms, 5s, 2m or 1h)");
    }

    @Test
    void healthServeWithAnInvalidConfigPrintsEachProblemWithItsLineAndExitsTwo(@TempDir Path dir) {
        String config = Cli.file(dir, "health.yaml", """
                region: cn
                checks:
                  - {name: pg, kind: postgres, target: 'localhost'}
                  - {name: web, kind: http, target: 'http://127.0.0.1:8080/', fall: 0}
                """);

        Cli cli = Cli.run("health", "serve", "--config", config);

        assertThat(cli.exit()).isEqualTo(2);
        assertThat(cli.err()).isEqualTo(
                config + ":3: checks[0].target: 'localhost' (expected: "
                + "postgresql://[user[:password]@]host[:port][/database][?param=value])\n"
                + config + ":4: checks[1].fall: 0 (expected: a whole number from 1 to 100)\n");
    }
}
