package io.unitas.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The gateway's stamp read on the way in and written on the way out, under default and configured names. */
class RoutingHeadersTest {

    @Test
    void read_theGatewaysStamp() {
        Map<String, String> in = Map.of("x-unitas-unit", "u-eu", "x-unitas-region", "eu",
                                        "x-unitas-origin", "us", "x-unitas-hops", "2", "x-unitas-version", "v2");
        assertThat(RoutingHeaders.DEFAULTS.read(in::get))
                .isEqualTo(new RoutingContext("u-eu", "eu", "us", 2, "v2"));
    }

    @Test
    void read_noStamp_isEmpty_andAMalformedHopCountIsZero() {
        assertThat(RoutingHeaders.DEFAULTS.read(name -> null)).isSameAs(RoutingContext.EMPTY);
        Map<String, String> in = Map.of("x-unitas-region", "cn", "x-unitas-hops", "lots");
        assertThat(RoutingHeaders.DEFAULTS.read(in::get)).isEqualTo(new RoutingContext(null, "cn", null, 0, null));
    }

    @Test
    void write_passesTheHopCountOnUnchanged_onlyGatewaysCountHops() {
        Map<String, String> out = new LinkedHashMap<>();
        RoutingHeaders.DEFAULTS.write(new RoutingContext("u-cn", "cn", "eu", 1, null), out::put);
        assertThat(out).containsExactly(Map.entry("x-unitas-unit", "u-cn"), Map.entry("x-unitas-region", "cn"),
                                        Map.entry("x-unitas-origin", "eu"), Map.entry("x-unitas-hops", "1"));
    }

    @Test
    void write_emptyContext_writesNothing() {
        Map<String, String> out = new LinkedHashMap<>();
        RoutingHeaders.DEFAULTS.write(RoutingContext.EMPTY, out::put);
        assertThat(out).isEmpty();
    }

    @Test
    void nepxionsRegionHeader_interoperates() {
        RoutingHeaders nepxion = new RoutingHeaders("x-unitas-unit", "N-D-Region", "x-unitas-origin",
                                                    "x-unitas-hops", "x-unitas-version");
        assertThat(nepxion.region()).isEqualTo("n-d-region");
        Map<String, String> out = new LinkedHashMap<>();
        nepxion.write(nepxion.read(Map.of("n-d-region", "eu")::get), out::put);
        assertThat(out).containsExactly(Map.entry("n-d-region", "eu"));
    }

    @Test
    void malformedNames_areRefused_namingThePart() {
        assertThatThrownBy(() -> new RoutingHeaders("x unit", "r", "o", "h", "v"))
                .hasMessage("headers.unit: 'x unit' (expected: letters, digits and !#$%&'*+-.^_`|~ only)");
        assertThatThrownBy(() -> new RoutingHeaders("a", "a", "o", "h", "v"))
                .hasMessage("headers: [a, a, o, h, v] (expected: five different names)");
        assertThat(RoutingHeaders.problems("unitas.headers", "ok", "", "bad:name", "h", "v"))
                .containsExactly("unitas.headers.region: '' (expected: a header name)",
                                 "unitas.headers.origin: 'bad:name' (expected: letters, digits and !#$%&'*+-.^_`|~ "
                                 + "only)");
    }

    @Test
    void forKey_placesAJobsUser_byTheGatewaysRules() {
        assertThat(RoutingContext.forKey(Fixtures.RULES, "1042")).isEqualTo(new RoutingContext("u-eu", "eu", null, 0,
                                                                                               null));
        assertThatThrownBy(() -> RoutingContext.forKey(Fixtures.RULES, "abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("key: 'abc' (expected: a key of a unit; bad key 'abc'");
    }
}
