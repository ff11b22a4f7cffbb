package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

class ReplayCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Cli replay(String topology, String health, String users, String... more) {
        List<String> args = new ArrayList<>(List.of("replay",
                "--topology", Cli.file(dir, "topology.yaml", topology),
                "--health", Cli.file(dir, "health.json", health),
                "--users", Cli.file(dir, "users.csv", users)));
        args.addAll(List.of(more));
        return Cli.run(args.toArray(String[]::new));
    }

    private JsonNode summary() throws IOException {
        return JSON.readTree(dir.resolve("summary.json").toFile());
    }

    private String summaryPath() {
        return dir.resolve("summary.json").toString();
    }

    @Test
    void writesUserHomeTargetReason_inInputOrder_withEveryRoutingReason() {
        Cli r = replay("regions: [cn, eu, us]\nfallback:\n  us: [cn]\n", "{\"cn\": false, \"eu\": true}",
                       "user_id,region\nu1,cn\nu2,eu\nu3,us\nu4,ap\nu5,cn\n");
        assertThat(r.exit()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).isEqualTo("""
                user_id,home,target,reason
                u1,cn,eu,failover
                u2,eu,eu,home
                u3,us,,no_healthy_region
                u4,ap,,unknown_region
                u5,cn,eu,failover
                """);
    }

    @Test
    void summary_hasUsersReasonsRegionLoadsAndCascade_inThatShape() throws IOException {
        Cli r = replay("regions:\n  - {id: cn, capacity: 10}\n  - {id: eu, capacity: 1.5}\n  - us\n",
                       "{\"cn\": false, \"eu\": true}", "user_id,region,load\nu1,cn,1\nu2,eu,0.75\nu3,ap,4\nu4,us,2\n",
                       "--summary", summaryPath());
        assertThat(r.exit()).isZero();
        JsonNode s = summary();
        assertThat(s).isEqualTo(JSON.readTree("""
                {"users": 4,
                 "by_reason": {"home": 1, "failover": 2, "no_healthy_region": 0, "unknown_region": 1},
                 "regions": {"cn": {"load": 0, "capacity": 10, "overloaded": false},
                             "eu": {"load": 3.75, "capacity": 1.5, "overloaded": true},
                             "us": {"load": 0, "capacity": null, "overloaded": false}},
                 "cascade": []}"""));
        assertThat(s.fieldNames()).toIterable().containsExactly("users", "by_reason", "regions", "cascade");
    }

    @Test
    void cascade_recordsEachStep_andRoutesByTheLastRound() throws IOException {
        Cli r = replay("regions:\n  - {id: a, capacity: 10}\n  - {id: b, capacity: 20}\n  - {id: c, capacity: 40}\n"
                       + "  - d\n", "{\"b\": true, \"c\": true, \"d\": true}",
                       "user_id,region,load\nu1,a,15\nu2,b,10\nu3,c,20\n", "--cascade", "--summary", summaryPath());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("""
                user_id,home,target,reason
                u1,a,d,failover
                u2,b,d,failover
                u3,c,d,failover
                """);
        assertThat(summary().get("cascade")).isEqualTo(JSON.readTree("""
                [{"step": 1, "tripped": ["b"]}, {"step": 2, "tripped": ["c"]}]"""));
        assertThat(summary().at("/regions/d/load").asInt()).isEqualTo(45);
    }

    @Test
    void spillover_splitsADownHomesUsersIntoBandsOfTheirHash_failoverSpilloverOverflow() throws IOException {
        // eu has 2 - 1 (frank) of room, us 2: cn's 5 is 1 to eu, 2 to us, 2 overflow to eu, in bands of the users'
        // positions (SpilloverBands.position / 2^63): carol 0.168, alice 0.207, judy 0.390, erin 0.628, bob 0.962.
        Cli r = replay("regions:\n  - cn\n  - {id: eu, capacity: 2}\n  - {id: us, capacity: 2}\n",
                       "{\"eu\": true, \"us\": true}",
                       "user_id,region\nalice,cn\nbob,cn\ncarol,cn\njudy,cn\nerin,cn\nfrank,eu\nzed,ap\n",
                       "--spillover", "--summary", summaryPath());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("""
                user_id,home,target,reason
                alice,cn,us,spillover
                bob,cn,eu,overflow
                carol,cn,eu,failover
                judy,cn,us,spillover
                erin,cn,eu,overflow
                frank,eu,eu,home
                zed,ap,,unknown_region
                """);
        assertThat(summary().get("by_reason")).isEqualTo(JSON.readTree("""
                {"home": 1, "failover": 1, "spillover": 2, "overflow": 2, "no_healthy_region": 0,
                 "unknown_region": 1}"""));
        assertThat(summary().at("/regions/eu/overloaded").asBoolean()).isTrue();
    }

    @Test
    void spilloverWithCascade_tripsWhatOverflowOverloads_thenPlacesOverTheSurvivors() throws IOException {
        Cli r = replay("regions:\n  - cn\n  - {id: eu, capacity: 1}\n  - us\n", "{\"eu\": true, \"us\": true}",
                       "user_id,region,load\nalice,cn,2\nbob,eu,2\n", "--spillover", "--cascade",
                       "--summary", summaryPath());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEqualTo("""
                user_id,home,target,reason
                alice,cn,us,failover
                bob,eu,us,failover
                """);
        assertThat(summary().get("cascade")).isEqualTo(JSON.readTree("[{\"step\": 1, \"tripped\": [\"eu\"]}]"));
    }

    @Test
    void out_isWrittenWhole_andStdoutStaysEmpty() throws IOException {
        Path out = dir.resolve("routes.csv");
        Cli r = replay("regions: [cn]\n", "{\"cn\": true}", "user_id,region\nu1,cn\n", "--out", out.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(out).hasContent("user_id,home,target,reason\nu1,cn,cn,home");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            wrong number of fields | regions: [cn, eu]                  | {"cn": true}             | user_id,region\\nu1,cn\\nu2,eu,3\\n   | users.csv:3: 3 fields (expected: 2: user_id,region)
            bad number             | regions: [cn, eu]                  | {"cn": true}             | user_id,region,load\\nu1,cn,x\\n     | users.csv:2: load: 'x' (expected: a number >= 0)
            bad header             | regions: [cn, eu]                  | {"cn": true}             | id,region\\nu1,cn\\n                 | users.csv:1: header 'id,region' (expected: user_id,region or user_id,region,load)
            invalid topology       | regions:\\n  - cn\\n  - cn\\n      | {"cn": true}             | user_id,region\\nu1,cn\\n            | topology.yaml:3: regions[1].id: duplicate region 'cn' (first at regions[0])
            invalid health         | regions: [cn, eu]                  | {"cn": true, "ap": true} | user_id,region\\nu1,cn\\n            | health.json:1: ap: unknown region 'ap' (expected one of: cn, eu)
            health not json        | regions: [cn, eu]                  | {"cn": tru               | user_id,region\\nu1,cn\\n            | health.json:1: not valid JSON: Unrecognized token 'tru': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')
            """)
    void inputError_exit2_oneLineNamingFileAndLine_outUntouched_noTempLeft(String what, String topology,
            String health, String users, String expected) throws IOException {
        Path out = dir.resolve("routes.csv");
        Files.writeString(out, "old\n");
        Cli r = replay(topology.replace("\\n", "\n"), health, users.replace("\\n", "\n"),
                       "--out", out.toString(), "--summary", summaryPath());

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo(dir + "/" + expected + "\n");
        assertThat(r.out()).isEmpty();
        assertThat(out).hasContent("old");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("topology.yaml", "health.json", "users.csv", "routes.csv");
        }
    }

    @Test
    void inputErrorMidStream_toStdout_printsNoPartialRoutes() {
        Cli r = replay("regions: [cn]\n", "{\"cn\": true}", "user_id,region\nu1,cn\nu2\n");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).endsWith("users.csv:3: 1 field (expected: 2: user_id,region)\n");
    }

    @Test
    void missingUsersFile_exit2_oneLine() {
        Path missing = dir.resolve("nope.csv");
        Cli r = Cli.run("replay", "--topology", Cli.file(dir, "t.yaml", "regions: [cn]\n"),
                        "--health", Cli.file(dir, "h.json", "{}"), "--users", missing.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo(missing + ": no such file\n");
    }

    @Test
    void theBundledExample_showsFailoverAndAnUnknownRegion() {
        Path examples = Cli.root().resolve("examples");
        Cli r = Cli.run("replay", "--topology", examples.resolve("topology.yaml").toString(),
                        "--health", examples.resolve("health.json").toString(),
                        "--users", examples.resolve("users.csv").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains(",cn,eu,failover\n", ",eu,eu,home\n", ",us,us,home\n", ",ap,,unknown_region\n");
    }

    @Test
    void outThroughALink_writesThroughIt_andKeepsTheLink() throws IOException {
        // /dev/stdout is such a link: replacing it with a file would break the machine, not just the command.
        Path real = Files.writeString(dir.resolve("real.csv"), "old\n");
        Path link = Files.createSymbolicLink(dir.resolve("link.csv"), real);
        Cli r = replay("regions: [cn, eu]\n", "{\"cn\": true}", "user_id,region\nu1,cn\n",
                       "--out", link.toString());
        assertThat(r.exit()).isZero();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readString(real)).isEqualTo("user_id,home,target,reason\nu1,cn,cn,home\n");
    }
}
