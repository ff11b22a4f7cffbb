package io.unitas.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesCommandTest {

    private static final String EXAMPLE = Cli.root().resolve("examples/rules.yaml").toString();

    @TempDir
    static Path dir;
    private static String topology;

    @BeforeAll
    static void writeTopology() throws IOException {
        topology = Files.writeString(dir.resolve("topology.yaml"), """
                regions: [{id: cn}, {id: eu}, {id: us}]
                center: cn
                """).toString();
    }

    private static Cli lookup(String rules, String... request) {
        List<String> args = new ArrayList<>(List.of("rules", "lookup", "--rules", rules, "--topology", topology));
        args.addAll(List.of(request));
        return Cli.run(args.toArray(new String[0]));
    }

    @Test
    void check_theExamples_printsOkWithCounts() {
        String exampleTopology = Cli.root().resolve("examples/topology.yaml").toString();
        assertThat(Cli.run("rules", "check", "--rules", EXAMPLE, "--topology", exampleTopology))
                .isEqualTo(new Cli(0, "ok: 4 units, 4 ranges\n", ""));
    }

    @Test
    void check_printsEveryProblemOnItsOwnLine_andExits2() throws IOException {
        Path rules = Files.writeString(dir.resolve("bad-rules.yaml"), """
                units:
                  - {id: u-sh, region: cn}
                  - {id: u-eu, region: mars}
                key: {sources: [{header: x-user-id}]}
                ranges:
                  - {range: 0~1999, unit: u-sh}
                  - {range: 2000~9999, unit: u-eu}
                  - {range: 1500~2500, unit: u-eu}
                """);
        Cli run = Cli.run("rules", "check", "--rules", rules.toString(), "--topology", topology);
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(
                rules + ":3: units[1].region: unknown region 'mars' (expected one of: cn, eu, us)\n"
                + rules + ":8: ranges[2]: 1500~2500 overlaps 0~1999 of unit u-sh\n"
                + rules + ":8: ranges[2]: 1500~2500 overlaps 2000~9999 of unit u-eu\n");
    }

    @Test
    void check_reportsTheTopologysOwnProblems() throws IOException {
        Path bad = Files.writeString(dir.resolve("bad-topology.yaml"), """
                regions: [{id: cn}, {id: eu}]
                fallback:
                  cn: [cn, mars]
                """);
        Cli run = Cli.run("rules", "check", "--rules", EXAMPLE, "--topology", bad.toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err().lines()).containsExactly(
                bad + ":3: fallback.cn[0]: 'cn' is the home region itself (expected: only other regions)",
                bad + ":3: fallback.cn[1]: unknown region 'mars' (expected one of: cn, eu)");
    }

    @Test
    void check_anUnreadableFile_isOneLine() {
        Cli run = Cli.run("rules", "check", "--rules", dir.resolve("nope.yaml").toString(), "--topology", topology);
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).isEqualTo(dir.resolve("nope.yaml") + ": no such file\n");
    }

    @Test
    void lookup_printsUnitRegionSourceAndKey() {
        assertThat(lookup(EXAMPLE, "--header", "X-User-Id=12345", "--cookie", "uid=12345"))
                .isEqualTo(new Cli(0, """
                        unit: u-hangzhou
                        region: cn
                        source: header x-user-id
                        key: 12345 (mod 10000: 2345)
                        """, ""));
    }

    @Test
    void lookup_showsTheGrayVersionThatApplies() {
        assertThat(lookup(EXAMPLE, "--query", "user_id=1", "--header", "x-version=1.1").out())
                .isEqualTo("""
                        unit: u-shanghai
                        region: cn
                        source: query user_id
                        key: 1 (mod 10000: 1)
                        gray: 1.1
                        """);
    }

    @Test
    void lookup_byDomainPrefix() {
        assertThat(lookup(EXAMPLE, "--host", "paris.shop.example").out()).isEqualTo("""
                unit: u-paris
                region: eu
                source: domain-prefix
                key: paris
                """);
    }

    @Test
    void lookup_withoutAKeyUnderReject_exits3WithOneLine() {
        assertThat(lookup(EXAMPLE, "--header", "accept=*/*"))
                .isEqualTo(new Cli(3, "", "missing_key: no routing key in the request\n"));
    }

    @Test
    void lookup_twoSourcesThatDisagree_exit3NamingBoth() {
        assertThat(lookup(EXAMPLE, "--header", "x-user-id=12345", "--cookie", "uid=1"))
                .isEqualTo(new Cli(3, "", "ambiguous_key: routing keys disagree: '12345' from header x-user-id and '1'"
                                          + " from cookie uid (expected: one key, or the same key from each source)\n"));
    }

    @Test
    void lookup_byPath() throws IOException {
        Path rules = Files.writeString(dir.resolve("path-rules.yaml"), """
                units: [{id: u-cn, region: cn}, {id: u-eu, region: eu}]
                key: {sources: [{path: "/wallets/{userId}"}], transform: mod 100}
                ranges: [{range: 0~49, unit: u-cn}, {range: 50~99, unit: u-eu}]
                """);
        assertThat(lookup(rules.toString(), "--path", "/wallets/4250/deposits").out()).isEqualTo("""
                unit: u-eu
                region: eu
                source: path /wallets/{userId}
                key: 4250 (mod 100: 50)
                """);
    }

    @Test
    void lookup_aBadKey_exits3WithOneLine() {
        assertThat(lookup(EXAMPLE, "--header", "x-user-id=alice"))
                .isEqualTo(new Cli(3, "", "bad_key: bad key 'alice' from header x-user-id\n"));
    }

    @Test
    void lookup_withoutAKeyUnderCenter_goesToTheCenter() throws IOException {
        Path rules = Files.writeString(dir.resolve("center.yaml"), Files.readString(Path.of(EXAMPLE))
                .replace("missing: reject", "missing: center"));
        assertThat(lookup(rules.toString())).isEqualTo(new Cli(0, """
                unit: none
                region: cn (center)
                source: none (missing: center)
                """, ""));
    }
}
