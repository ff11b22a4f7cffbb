package io.unitas.core.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
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
    @CsvSource({"'', 0", "2, 2", "17, 17", "x, 0", "-1, 0", "99999, 0", "9999, 9999", "0, 0", "9, 9", "/, 0", ":, 0",
                "1:, 0",
                "10, 10", "1000, 1000"})
    void hopCountsParseLeniently(String value, int hops) {
        assertThat(HopRule.parseHops(value)).isEqualTo(hops);
    }

    @ParameterizedTest(name = "a hop limit of {0} is allowed: {1}")
    @CsvSource({"0, false", "1, true", "-3, false"})
    void theHopLimitIsAtLeastOne(int limit, boolean allowed) {
        if (allowed) {
            assertThat(new HopRule(limit).judge("eu", limit - 1)).isEqualTo(HopRule.Verdict.PREROUTED);
            assertThat(new HopRule(limit).judge("eu", limit)).isEqualTo(HopRule.Verdict.LOOP);
        } else {
            assertThatThrownBy(() -> new HopRule(limit)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("hop_limit: " + limit + " (expected: >= 1)");
        }
    }

    @Test
    void aMissingHopCountIsZero() {
        assertThat(HopRule.parseHops(null)).isZero();
    }
}
