package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import io.unitas.core.Region;

/** Forwarding decisions are found again when every value matches, and made anew when any differs. */
class DecisionCacheTest {

    private final DecisionCache cache = new DecisionCache();
    private final Region cn = Region.of("cn");
    private final Region eu = Region.of("eu");

    @Test
    void theSameRouteOfTheSameUnitIsTheSameDecision() {
        Decision first = cache.forward("u-cn", cn, cn, "home", null, 0);

        Decision again = cache.forward("u-cn", Region.of("cn"), Region.of("cn"), "home", null, 0);

        assertThat(again).isSameAs(first);
        assertThat(again).isEqualTo(new Decision("u-cn", cn, cn, "home", null, 0, null));
        assertThat(again.forwards()).isTrue();
    }

    @Test
    void anyDifferingValueMakesADecisionOfItsOwn() {
        Decision base = cache.forward("u-cn", cn, cn, "home", null, 0);

        Decision[] others = {
                cache.forward("u-eu", cn, cn, "home", null, 0),
                cache.forward("u-cn", eu, cn, "home", null, 0),
                cache.forward("u-cn", cn, eu, "failover", null, 0),
                cache.forward("u-cn", cn, cn, "prerouted", null, 0),
                cache.forward("u-cn", cn, cn, "home", "v2", 0),
                cache.forward("u-cn", cn, cn, "home", null, 1),
                cache.forward(null, null, cn, "home", null, 0),
        };

        assertThat(others).containsExactly(
                new Decision("u-eu", cn, cn, "home", null, 0, null),
                new Decision("u-cn", eu, cn, "home", null, 0, null),
                new Decision("u-cn", cn, eu, "failover", null, 0, null),
                new Decision("u-cn", cn, cn, "prerouted", null, 0, null),
                new Decision("u-cn", cn, cn, "home", "v2", 0, null),
                new Decision("u-cn", cn, cn, "home", null, 1, null),
                new Decision(null, null, cn, "home", null, 0, null));
        assertThat(cache.forward("u-cn", cn, cn, "home", null, 0)).isEqualTo(base);
    }

    @Test
    void moreCombinationsThanSlotsStillGetTheirOwnValues() {
        int n = DecisionCache.SLOTS * 4;
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < n; i++) {
                Region target = i % 2 == 0 ? cn : eu;
                assertThat(cache.forward("u-" + i, cn, target, "home", null, i % 3))
                        .isEqualTo(new Decision("u-" + i, cn, target, "home", null, i % 3, null));
            }
        }
    }
}
