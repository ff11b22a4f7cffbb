package io.unitas.core.propagation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HopRuleTest {

    @ParameterizedTest(name = "stamp ''{0}'', {1} hops → {2}")
    @CsvSource({
            "'',  0, ROUTE",
            "eu,  1, PREROUTED",
            "eu,  0, PREROUTED",
            "eu,  2, PREROUTED",
            "eu,  3, LOOP",
            "'',  3, LOOP",
    })
    void aStampedRequestIsNotRoutedAgainAndTheLimitEndsLoops(String stamp, int hops, HopRule.Verdict verdict) {
        assertThat(HopRule.standard().judge(stamp, hops)).isEqualTo(verdict);
    }

    @ParameterizedTest(name = "''{0}'' → {1}")
    @CsvSource({"'', 0", "2, 2", "17, 17", "x, 0", "-1, 0", "99999, 0"})
    void hopCountsParseLeniently(String value, int hops) {
        assertThat(HopRule.parseHops(value)).isEqualTo(hops);
    }
}
