package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RouteCommandTest {

    @TempDir
    Path dir;
    String topology;

    @BeforeEach
    void topology() {
        topology = Cli.file(dir, "topology.yaml", "regions: [cn, eu, us]\n");
    }

    private Cli route(String health, String region) {
        return Cli.run("route", "--topology", topology, "--health", Cli.file(dir, "health.json", health),
                       "--region", region);
    }

    @ParameterizedTest(name = "home {0} under {1} -> {2}")
    @CsvSource(delimiter = '|', textBlock = """
            cn | {"cn": true, "eu": true}   | cn
            cn | {"cn": false, "eu": true}  | eu
            us | {"us": false, "cn": true}  | cn
            """)
    void printsTheTargetAlone_exit0(String home, String health, String target) {
        Cli r = route(health, home);
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo(target + "\n");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void unknownRegion_exit3_oneLine() {
        Cli r = route("{\"cn\": true}", "ap");
        assertThat(r.exit()).isEqualTo(3);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("unitas route: unknown region 'ap' (expected one of: cn, eu, us)\n");
    }

    @Test
    void noHealthyRegion_exit4_oneLine() {
        Cli r = route("{\"cn\": false}", "cn");
        assertThat(r.exit()).isEqualTo(4);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("unitas route: no healthy region for home region cn\n");
    }

    @Test
    void invalidHealthFile_exit2_namingFileLineAndPath() {
        Cli r = route("{\"cn\": true,\n \"mars\": true}", "cn");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo(dir.resolve("health.json")
                + ":2: mars: unknown region 'mars' (expected one of: cn, eu, us)\n");
    }

    @Test
    void missingOption_exit2() {
        assertThat(Cli.run("route", "--topology", topology).exit()).isEqualTo(2);
    }
}
