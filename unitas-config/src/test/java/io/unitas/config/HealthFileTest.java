package io.unitas.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.config.internal.ConfigDocument;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;

class HealthFileTest {

    private static final Topology TOPOLOGY = Topology.of("cn", "eu", "us");

    private static HealthSnapshot parse(String text) {
        return HealthFile.parse(ConfigDocument.parse("h.json", text), TOPOLOGY);
    }

    @Test
    void aNumberTooLargeToRead_isAnErrorNamingThePlace_notACrash() {
        assertThatThrownBy(() -> parse("{\"cn\": {\"healthy\": true, \"score\": 28035986211e4007536850000.95}}"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("h.json");
    }

    @Test
    void readsFlags_andLeftOutRegionsAreUnhealthy() {
        HealthSnapshot h = parse("{\"cn\": false, \"eu\": true}");
        assertThat(h.isHealthy(Region.of("cn"))).isFalse();
        assertThat(h.isHealthy(Region.of("eu"))).isTrue();
        assertThat(h.isHealthy(Region.of("us"))).isFalse();
    }

    @Test
    void readsTheRicherFieldsOfRegionHealth() {
        HealthSnapshot h = parse("""
                {"cn": {"healthy": false},
                 "eu": {"healthy": true, "writable": false, "replication_lag_ms": 1200, "score": 0.5,
                        "reasons": ["primary read-only"]}}""");
        assertThat(h.get(Region.of("cn"))).isEqualTo(RegionHealth.down());
        assertThat(h.get(Region.of("eu")))
                .isEqualTo(new RegionHealth(true, false, 1200, 0.5, List.of("primary read-only")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown region   | {"cn": true,\\n "ap": true}          | h.json:2: ap: unknown region 'ap' (expected one of: cn, eu, us)
            not a flag       | {"cn": "up"}                         | h.json:1: cn: "up" (expected: true, false or {"healthy": ...})
            healthy missing  | {"cn": {"writable": true}}           | h.json:1: cn.healthy: missing (expected: true or false)
            bad score        | {"cn": {"healthy": true, "score": 2}} | h.json:1: cn.score: 2 (expected: a number from 0 to 1)
            bad lag          | {"cn": {"healthy": true, "replication_lag_ms": 1.5}} | h.json:1: cn.replication_lag_ms: 1.5 (expected: an integer >= 0, or -1 for unknown)
            unknown field    | {"cn": {"healthy": true, "up": 1}}   | h.json:1: cn.up: unknown field (expected one of: healthy, reasons, replication_lag_ms, score, writable)
            not an object    | [true]                               | h.json:1: not a mapping (expected: region id -> true, false or {"healthy": ...})
            not json         | {"cn": tru}                          | h.json:1: not valid JSON
            """)
    void reportsEachMistakeWithFileLineAndPath(String what, String text, String expected) {
        assertThatThrownBy(() -> parse(text.replace("\\n", "\n"))).isInstanceOf(ConfigException.class)
                                                                  .hasMessageStartingWith(expected);
    }
}
