package io.unitas.core.rules;

import static io.unitas.core.rules.RulesFixtures.TOPOLOGY;
import static io.unitas.core.rules.RulesFixtures.threeUnits;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.Region;

/** What a built rule set answers about itself: the parts it was built from, loads, key shares and equality. */
class UnitRulesAccessorsTest {

    private final UnitRules rules = threeUnits().build(TOPOLOGY);

    @Test
    void theRuleSetKeepsEveryPartInItsListedOrder() {
        assertThat(rules.topology()).isEqualTo(TOPOLOGY);
        assertThat(rules.units()).extracting(Unit::id).containsExactly("u-cn", "u-eu", "u-us");
        assertThat(rules.units()).extracting(Unit::home).containsExactly(Region.of("cn"), Region.of("eu"),
                                                                         Region.of("us"));
        assertThat(rules.sources()).containsExactly(KeySource.header("x-user-id"), KeySource.cookie("uid"),
                                                    KeySource.query("user_id"), KeySource.domainPrefix());
        assertThat(rules.transform()).isEqualTo(KeyTransform.mod(10_000));
        assertThat(rules.ranges()).extracting(r -> r.range().toString() + " " + r.unit())
                .containsExactly("0~3999 u-cn", "4000~6999 u-eu", "7000~9999 u-us");
        assertThat(rules.missing()).isEqualTo(MissingKeyAction.REJECT);
        assertThat(rules.domains()).containsExactly(Map.entry("shanghai", "u-cn"), Map.entry("paris", "u-eu"),
                                                    Map.entry("newyork", "u-us"));
        assertThat(rules.gray()).isEmpty();
        assertThat(rules.gray("u-cn")).isEmpty();
    }

    @Test
    void aUnitsLoadIsWhatTheRulesSayOrEmpty() {
        UnitRules withLoad = UnitRules.builder().unit("u-cn", "cn", 120.0).unit("u-eu", "eu")
                .source(KeySource.header("x-user-id")).transform(KeyTransform.mod(10))
                .range(0, 4, "u-cn").range(5, 9, "u-eu").strategies(Map.of()).build(TOPOLOGY);

        assertThat(withLoad.load("u-cn")).isEqualTo(OptionalDouble.of(120));
        assertThat(withLoad.load("u-eu")).isEmpty();
        assertThat(withLoad.load("u-nowhere")).isEmpty();
    }

    @ParameterizedTest(name = "unit {0} holds {1} of the keys")
    @CsvSource({"u-cn, 0.4", "u-eu, 0.3", "u-us, 0.3", "u-nowhere, 0"})
    void keyShare_isTheFractionOfTheKeySpaceAUnitsRangesCover(String unit, double share) {
        assertThat(rules.keyShare(unit)).isCloseTo(share, offset(1e-12));
    }

    @Test
    void twoRuleSetsBuiltAlikeAreEqualAndADifferentRangeIsNot() {
        UnitRules again = threeUnits().build(TOPOLOGY);
        UnitRules moved = UnitRules.builder()
                .unit("u-cn", "cn").unit("u-eu", "eu").unit("u-us", "us")
                .source(KeySource.header("x-user-id")).source(KeySource.cookie("uid"))
                .source(KeySource.query("user_id")).source(KeySource.domainPrefix())
                .transform(KeyTransform.mod(10_000))
                .range(0, 4999, "u-cn").range(5000, 6999, "u-eu").range(7000, 9999, "u-us")
                .domain("shanghai", "u-cn").domain("paris", "u-eu").domain("newyork", "u-us")
                .strategies(Map.of()).build(TOPOLOGY);

        assertThat(again).isEqualTo(rules).hasSameHashCodeAs(rules);
        assertThat(moved).isNotEqualTo(rules);
        assertThat(rules.equals(List.of())).isFalse();
    }

    @Test
    void theTextSummarisesTheRuleSet() {
        assertThat(rules.toString()).startsWith("UnitRules{units=").contains("u-eu").contains("mod 10000")
                .contains("ranges=3").contains("missing=" + MissingKeyAction.REJECT.label());
    }
}
