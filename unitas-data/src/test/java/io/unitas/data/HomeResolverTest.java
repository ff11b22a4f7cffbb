package io.unitas.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.UnitRules;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HomeResolverTest {

    static final KeySource USER = KeySource.header("x-user-id");
    final UnitRules rules = UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu").source(USER)
                                     .transform(KeyTransform.mod(10_000)).range(0, 4_999, "u-cn")
                                     .range(5_000, 9_999, "u-eu").build(Topology.of("cn", "eu", "us"));

    @ParameterizedTest(name = "{0} -> {1} in {2}")
    @CsvSource(textBlock = """
            1001,  u-cn, cn
            17001, u-eu, eu
            """)
    void byTheRules_aKeyIsAtHomeInItsUnitsRegion(String key, String unit, String region) {
        assertThat(HomeResolver.rules(() -> rules, USER).home(key)).isEqualTo(Home.of(key, unit, Region.of(region)));
    }

    @Test
    void theLiveUnitToRegionMap_winsOverTheRulesHome_forTheUnitsItNames() {
        Map<String, Region> live = Map.of("u-cn", Region.of("us"));
        HomeResolver homes = HomeResolver.rules(() -> rules, USER, unit -> Optional.ofNullable(live.get(unit.id())));
        assertThat(homes.home("1001").region()).isEqualTo(Region.of("us"));
        assertThat(homes.home("7001").region()).isEqualTo(Region.of("eu"));
    }

    @Test
    void rulesRemappedBySwitchover_moveTheHome_onTheNextCall() {
        UnitRules[] current = {rules};
        HomeResolver homes = HomeResolver.rules(() -> current[0], USER);
        assertThat(homes.home("1001").region()).isEqualTo(Region.of("cn"));
        current[0] = rules.remap(Map.of("u-cn", "eu"));
        assertThat(homes.home("1001").region()).isEqualTo(Region.of("eu"));
    }

    @Test
    void aKeyOfNoUnit_hasNoHome_andSaysWhy() {
        Home none = HomeResolver.rules(() -> rules, USER).home("alice");
        assertThat(none.found()).isFalse();
        assertThat(none.problem()).isEqualTo("'alice' has no unit (bad_key)");
    }

    @Test
    void home_isAUnitWithItsRegion_orAProblem_neverBoth() {
        assertThatThrownBy(() -> new Home("k", "u-cn", Region.of("cn"), "why"))
                .hasMessage("home of 'k': unit u-cn, region cn, problem 'why' (expected: a unit and its region,"
                            + " or a problem)");
        assertThatThrownBy(() -> Home.none("k", "")).hasMessage("why: empty (expected: the reason the key has no unit)");
        assertThat(HomeResolver.always(Region.of("cn")).home("k")).isEqualTo(Home.of("k", "cn", Region.of("cn")));
    }
}
