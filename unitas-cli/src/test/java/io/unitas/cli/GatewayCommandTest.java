package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GatewayCommandTest {

    @TempDir
    Path dir;

    @Test
    void anInvalidConfigIsOneLinePerProblem_exit2() {
        String config = Cli.file(dir, "gateway.yaml", "region: CN\nlisten: nowhere\n");
        Cli r = Cli.run("gateway", "--config", config);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).contains(
                config + ":1: region: 'CN' (expected: lowercase letters, digits, '-' or '_', at most 63)",
                config + ":2: listen: 'nowhere' (expected: host:port, e.g. 127.0.0.1:8080)");
        assertThat(r.err()).doesNotContain("Exception");
    }

    @Test
    void invalidStaticFilesStopTheStart_exit2() {
        Cli.file(dir, "topology.yaml", "regions: [cn, eu]\n");
        Cli.file(dir, "rules.yaml", "units: [{id: u-cn, region: mars}]\n");
        Cli.file(dir, "health.yaml", "cn: true\n");
        String config = Cli.file(dir, "gateway.yaml", """
                region: cn
                listen: 127.0.0.1:0
                upstreams: {cn: {endpoints: [127.0.0.1:9]}}
                static: {topology: topology.yaml, rules: rules.yaml, health: health.yaml}
                """);
        Cli r = Cli.run("gateway", "--config", config);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("rules.yaml:1:").contains("mars");
    }
}
