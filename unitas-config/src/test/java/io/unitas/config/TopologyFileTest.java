package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.Region;
import io.unitas.core.Topology;

class TopologyFileTest {

    private static Topology parse(String name, String text) {
        return TopologyFile.parse(ConfigDocument.parse(name, text));
    }

    private static List<String> problems(String name, String text) {
        try {
            parse(name, text);
        } catch (ConfigException e) {
            return e.problems();
        }
        throw new AssertionError("expected problems in " + text);
    }

    @Test
    void readsTheDocumentedYamlExample(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("topology.yaml");
        Files.writeString(file, """
                regions:            # listed order = the global fallback order
                  - id: cn
                    capacity: 1000  # optional
                  - id: eu
                  - us
                fallback:
                  us: [eu, cn]
                center: cn
                """);
        Topology t = TopologyFile.read(file);
        assertThat(t.regions()).extracting(Region::id).containsExactly("cn", "eu", "us");
        assertThat(t.capacity(Region.of("cn"))).isEqualTo(OptionalDouble.of(1000));
        assertThat(t.capacity(Region.of("eu"))).isEmpty();
        assertThat(t.fallback(Region.of("us"))).extracting(Region::id).containsExactly("eu", "cn");
        assertThat(t.fallback(Region.of("cn"))).extracting(Region::id).containsExactly("eu", "us");
        assertThat(t.center()).contains(Region.of("cn"));
    }

    @Test
    void readsJsonByExtension() {
        Topology t = parse("t.json", "{\"regions\": [{\"id\": \"cn\", \"capacity\": 2.5}, {\"id\": \"eu\"}]}");
        assertThat(t.capacity(Region.of("cn"))).isEqualTo(OptionalDouble.of(2.5));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            negative capacity     | regions:\\n  - id: cn\\n    capacity: -5\\n              | t.yaml:3: regions[0].capacity: -5 (expected: >= 0)
            capacity not a number | regions:\\n  - id: cn\\n    capacity: lots\\n            | t.yaml:3: regions[0].capacity: 'lots' (expected: a number >= 0)
            bad region id         | regions:\\n  - id: cn\\n  - id: EU\\n                    | t.yaml:3: regions[1].id: 'EU' (expected: lowercase letters, digits, '-' or '_', at most 63)
            duplicate region      | regions: [cn, eu, cn]\\n                                 | t.yaml:1: regions[2].id: duplicate region 'cn' (first at regions[0])
            unknown fallback home | regions: [cn, eu]\\nfallback:\\n  us: [cn]\\n            | t.yaml:3: fallback.us: unknown region 'us' (expected one of: cn, eu)
            unknown in fallback   | regions: [cn, eu]\\nfallback:\\n  eu: [cn, ap]\\n        | t.yaml:3: fallback.eu[1]: unknown region 'ap' (expected one of: cn, eu)
            home in own fallback  | regions: [cn, eu]\\nfallback:\\n  eu:\\n    - eu\\n       | t.yaml:4: fallback.eu[0]: 'eu' is the home region itself (expected: only other regions)
            unknown center        | regions: [cn]\\ncenter: us\\n                            | t.yaml:2: center: unknown region 'us' (expected one of: cn)
            no regions            | center: cn\\n                                            | t.yaml:1: regions: missing (expected: a list of regions)
            empty regions         | regions: []\\n                                           | t.yaml:1: regions: [] (expected: at least one region)
            unknown field         | regions: [cn]\\nzones: 3\\n                              | t.yaml:2: zones: unknown field (expected one of: center, fallback, regions)
            unknown region field  | regions:\\n  - id: cn\\n    size: 3\\n                 | t.yaml:3: regions[0].size: unknown field (expected one of: capacity, id)
            not yaml              | regions: [cn\\n                                          | t.yaml:1: not valid YAML: while parsing a flow sequence: expected ',' or ']', but got <stream end>
            """)
    void reportsEachMistakeWithFileLineAndPath(String what, String text, String expected) {
        assertThat(problems("t.yaml", text.replace("\\n", "\n")).get(0)).startsWith(expected).doesNotContain("\n");
    }

    @Test
    void reportsEveryProblemAtOnce() {
        assertThat(problems("t.yaml", "regions:\n  - id: cn\n    capacity: -1\n  - id: cn\ncenter: ap\n"))
                .containsExactly("t.yaml:3: regions[0].capacity: -1 (expected: >= 0)",
                                 "t.yaml:4: regions[1].id: duplicate region 'cn' (first at regions[0])",
                                 "t.yaml:5: center: unknown region 'ap' (expected one of: cn)");
    }

    @Test
    void missingFile_isOneLine(@TempDir Path dir) {
        Path file = dir.resolve("nope.yaml");
        assertThatThrownBy(() -> TopologyFile.read(file)).isInstanceOf(ConfigException.class)
                                                         .hasMessage(file + ": no such file");
    }
}
