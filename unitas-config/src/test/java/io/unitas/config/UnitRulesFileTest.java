package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.rules.GrayRule;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.MissingKeyAction;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;

class UnitRulesFileTest {

    private static final Topology TOPOLOGY =
            Topology.builder().region("cn").region("eu").region("us").center("cn").build();

    private static UnitRules parse(String name, String text) {
        return UnitRulesFile.parse(ConfigDocument.parse(name, text), TOPOLOGY, Map.of());
    }

    private static List<String> problems(String text) {
        try {
            parse("rules.yaml", text);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected problems in:\n" + text);
    }

    @Test
    void theExampleFile_readsIntoRules() {
        UnitRules rules = UnitRulesFile.read(Path.of("../examples/rules.yaml"), TOPOLOGY);
        assertThat(rules.units()).extracting(u -> u.id() + "@" + u.home())
                .containsExactly("u-shanghai@cn", "u-hangzhou@cn", "u-paris@eu", "u-newyork@us");
        assertThat(rules.sources()).containsExactly(KeySource.header("x-user-id"), KeySource.cookie("uid"),
                                                    KeySource.query("user_id"), KeySource.domainPrefix());
        assertThat(rules.transform()).isEqualTo(KeyTransform.mod(10_000));
        assertThat(rules.missing()).isEqualTo(MissingKeyAction.REJECT);
        assertThat(rules.ranges()).hasSize(4);
        assertThat(rules.domains()).containsEntry("paris", "u-paris").hasSize(4);
        assertThat(rules.gray("u-shanghai")).containsExactly(GrayRule.when("x-version", "1.1", "1.1"),
                                                             GrayRule.otherwise("1.0"));
        assertThat(rules.lookup(RequestView.ofHeaders(Map.of("x-user-id", "12345"))).unit().id())
                .isEqualTo("u-hangzhou");
    }

    @Test
    void json_readsTheSameFormat() {
        UnitRules rules = parse("rules.json", """
                {"units": [{"id": "u-cn", "region": "cn"}, {"id": "u-eu", "region": "eu"}],
                 "key": {"sources": [{"header": "x-user-id"}], "transform": "hash-mod 100", "missing": "center"},
                 "ranges": [{"range": "0~49", "unit": "u-cn"}, {"range": "50~99", "unit": "u-eu"}]}
                """);
        assertThat(rules.transform()).isEqualTo(KeyTransform.hashMod(100));
        assertThat(rules.lookup(RequestView.ofHeaders(Map.of())).region()).isEqualTo(Region.of("cn"));
    }

    @Test
    void aPathSource_readsTheKeyFromThePath_andWritesBack() {
        UnitRules rules = parse("rules.yaml", """
                units: [{id: u-cn, region: cn}, {id: u-eu, region: eu}]
                key:
                  sources: [{path: "/wallets/{userId}"}, {header: x-user-id}]
                  transform: mod 100
                ranges: [{range: 0~49, unit: u-cn}, {range: 50~99, unit: u-eu}]
                """);

        assertThat(rules.sources()).containsExactly(KeySource.path("/wallets/{userId}"), KeySource.header("x-user-id"));
        assertThat(rules.lookup(RequestView.of(Map.of(), Map.of(), Map.of(), null, "/wallets/77/deposits")).unit().id())
                .isEqualTo("u-eu");
        assertThat(UnitRulesFile.parse(ConfigDocument.parse("again.json", UnitRulesFile.toTree(rules).toString()),
                                       TOPOLOGY, Map.of()))
                .isEqualTo(rules);
    }

    @Test
    void aBadPathPattern_namesTheSourceAndWhatWasExpected() {
        assertThat(problems("""
                units: [{id: u-cn, region: cn}]
                key: {sources: [{path: /wallets/userId}, {header: x-user-id}]}
                ranges: [{range: 0~9, unit: u-cn}]
                """)).containsExactly("rules.yaml:2: key.sources[0].path: '/wallets/userId' has no {variable}"
                                      + " (expected: a path such as /wallets/{userId}, with exactly one {variable}"
                                      + " segment)");
    }

    @Test
    void overlappingRanges_nameTheFileLinePathAndValues() {
        assertThat(problems("""
                units: [{id: u-sh, region: cn}, {id: u-hz, region: cn}]
                key: {sources: [{header: userid}]}
                ranges:
                  - {range: 0~1999, unit: u-sh}
                  - {range: 2000~9999, unit: u-hz}
                  - {range: 1500~2500, unit: u-hz}
                """)).containsExactly(
                "rules.yaml:6: ranges[2]: 1500~2500 overlaps 0~1999 of unit u-sh",
                "rules.yaml:6: ranges[2]: 1500~2500 overlaps 2000~9999 of unit u-hz");
    }

    @Test
    void everyProblem_isReportedAtOnce_inLineOrder() {
        assertThat(problems("""
                units:
                  - {id: u-cn, region: cn}
                  - {id: u-cn, region: mars}
                key:
                  sources: [{header: x-user-id}, {colour: blue}, {domain-prefix: true}, {cookie: [a]}]
                  transform: mod ten
                  missing: maybe
                ranges:
                  - {range: 0~4999, unit: u-cn}
                  - {range: 5000~99999, unit: u-xx}
                  - {range: 9~1, unit: u-cn}
                domains: {shanghai: u-cn, Shanghai: u-cn}
                gray:
                  u-cn:
                    - {version: "1.0"}
                    - {when: {header: x-version, equals: 1.1}, version: 1.1}
                    - {when: {header: x-version}}
                colour: blue
                """)).containsExactly(
                "rules.yaml:3: units[1].id: duplicate unit 'u-cn' (first at units[0])",
                "rules.yaml:3: units[1].region: unknown region 'mars' (expected one of: cn, eu, us)",
                "rules.yaml:5: key.sources[1].colour: unknown source (expected one of: header, cookie, query,"
                + " path, domain-prefix or strategy)",
                "rules.yaml:5: key.sources[3].cookie: [\"a\"] (expected: a name)",
                "rules.yaml:6: key.transform: 'mod ten' (expected: N between 1 and 1000000000000000)",
                "rules.yaml:7: key.missing: 'maybe' (expected: reject or center)",
                "rules.yaml:10: ranges[1].unit: unknown unit 'u-xx' (expected one of: u-cn)",
                "rules.yaml:11: ranges[2].range: '9~1' is inverted (expected: first <= last)",
                "rules.yaml:12: domains.Shanghai: duplicate domain prefix 'shanghai' (first at domains.shanghai)",
                "rules.yaml:16: gray.u-cn[1]: header x-version == 1.1 -> 1.1 is unreachable after the fallback"
                + " route at gray.u-cn[0] (expected: the rule without 'when' last)",
                "rules.yaml:17: gray.u-cn[2].version: missing (expected: a version)",
                "rules.yaml:17: gray.u-cn[2].when.equals: missing (expected: the value to match)",
                "rules.yaml:18: colour: unknown field (expected one of: domains, gray, key, ranges, units)");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not a mapping       | [1, 2]                                   | rules.yaml:1: not a mapping (expected:"
                    + " units, key, ranges, and optionally domains and gray)",
            "units missing       | 'key: {sources: [{header: h}]}'          | rules.yaml:1: units: missing (expected:"
                    + " a list of units, each {id, region})",
            "key not a mapping   | 'units: [{id: u, region: cn}]\nkey: h'  | rules.yaml:2: key: not a mapping"
                    + " (expected: {sources, transform, missing})",
            "source of two kinds | 'units: [{id: u, region: cn}]\nkey: {sources: [{header: a, cookie: b}]}' |"
                    + " rules.yaml:2: key.sources[0]: {\"header\":\"a\",\"cookie\":\"b\"} (expected: one of"
                    + " {header, cookie, query, path, domain-prefix or strategy: ...})",
            "domain-prefix: host | 'units: [{id: u, region: cn}]\nkey: {sources: [{domain-prefix: host}]}' |"
                    + " rules.yaml:2: key.sources[0].domain-prefix: \"host\" (expected: true)",
    })
    void structuralMistakes_sayWhatWasExpected(String name, String text, String expected) {
        assertThat(problems(text.replace("\\n", "\n"))).first().isEqualTo(expected);
    }

    @Test
    void toTree_writesTheFormatBack_andReadsToEqualRules() {
        UnitRules example = UnitRulesFile.read(Path.of("../examples/rules.yaml"), TOPOLOGY);
        UnitRules withLoads = parse("rules.json", """
                {"units": [{"id": "u-cn", "region": "cn", "load": 1200}, {"id": "u-eu", "region": "eu"}],
                 "key": {"sources": [{"cookie": "uid"}], "transform": "none", "missing": "center"},
                 "ranges": [{"range": "5~9", "unit": "u-cn"}, {"range": "10~19", "unit": "u-eu"}]}
                """);
        for (UnitRules rules : List.of(example, withLoads, example.remap(Map.of("u-shanghai", "us")))) {
            String json = UnitRulesFile.toTree(rules).toString();
            assertThat(parse("rules.json", json)).isEqualTo(rules);
        }
        assertThat(withLoads.load("u-cn")).hasValue(1200.0);
        assertThat(withLoads.load("u-eu")).isEmpty();
        assertThat(withLoads.keyShare("u-eu")).isEqualTo(10.0 / 15);
        assertThat(UnitRulesFile.toTree(withLoads).toString()).isEqualTo("{\"units\":[{\"id\":\"u-cn\","
                + "\"region\":\"cn\",\"load\":1200.0},{\"id\":\"u-eu\",\"region\":\"eu\"}],\"key\":"
                + "{\"sources\":[{\"cookie\":\"uid\"}],\"transform\":\"none\",\"missing\":\"center\"},"
                + "\"ranges\":[{\"range\":\"5~9\",\"unit\":\"u-cn\"},{\"range\":\"10~19\",\"unit\":"
                + "\"u-eu\"}]}");
    }

    @Test
    void text_readsBackTheTree_inTheFormatItsNameChooses_andIsNamedInErrors() {
        UnitRules example = UnitRulesFile.read(Path.of("../examples/rules.yaml"), TOPOLOGY);

        assertThat(UnitRulesFile.parse("again.json", UnitRulesFile.toTree(example).toString(), TOPOLOGY))
                .isEqualTo(example);
        assertThatThrownBy(() -> UnitRulesFile.parse("pushed.json", "units: []", TOPOLOGY))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith("pushed.json:1: not valid JSON");
    }

    @Test
    void anExactlyRepeatedKey_isRejected_notSilentlyOverwritten() {
        assertThat(problems("""
                units: [{id: u-cn, region: cn}, {id: u-eu, region: eu}]
                key: {sources: [{domain-prefix: true}]}
                domains:
                  paris: u-cn
                  paris: u-eu
                """)).containsExactly("rules.yaml:5: not valid YAML: duplicate key 'paris' (first on line 4)");
    }

    @Test
    void aNegativeLoad_isAProblem() {
        assertThat(problems("""
                units: [{id: u-cn, region: cn, load: -5}]
                key: {sources: [{header: h}]}
                ranges: [{range: 0~9, unit: u-cn}]
                """)).containsExactly("rules.yaml:1: units[0].load: -5.0 (expected: a number >= 0)");
    }

    @Test
    void anUnknownStrategy_isAProblemOfTheFile() {
        assertThatThrownBy(() -> parse("rules.yaml", """
                units: [{id: u-cn, region: cn}]
                key: {sources: [{strategy: geo}]}
                """)).isInstanceOf(ConfigException.class).hasMessage("rules.yaml:2: key.sources[0].strategy: unknown"
                + " strategy 'geo' (expected: a strategy listed in META-INF/services/io.unitas.core.rules.UnitStrategy;"
                + " none is installed)");
    }
}
