package io.unitas.core.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.Topology;

class SpilloverBandsTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final long NOW = 1_000_000;

    /** The position a fraction {@code f} of the way through the bands. */
    private static long at(double f) {
        return (long) Math.floor(f * 0x1p63);
    }

    private static HealthSnapshot up(String... ids) {
        Map<Region, Boolean> m = new LinkedHashMap<>();
        for (String id : ids) {
            m.put(Region.of(id), true);
        }
        return HealthSnapshot.ofFlags(m);
    }

    private static Map<String, Double> loads(Object... homeAndLoad) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < homeAndLoad.length; i += 2) {
            m.put((String) homeAndLoad[i], ((Number) homeAndLoad[i + 1]).doubleValue());
        }
        return m;
    }

    private static RouteDecision spill(Region target) {
        return new RouteDecision(RouteDecision.Outcome.SPILLOVER, "cn", target);
    }

    @Test
    void aDownHomesUsersAreSplitByTheFallbackRegionsRoomLeft_inRouteOrder() {
        // eu has 100 - 60 = 40 of room, us 100 - 40 = 60; cn's 50 pours 40 into eu, then 10 into us.
        Topology t = Topology.builder().region("cn", 100.0).region("eu", 100.0).region("us", 100.0).build();
        HealthSnapshot h = up("eu", "us");
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 50, "eu", 60, "us", 40), h);
        RouteDecision routed = Router.of(t).route("cn", h);

        assertThat(bands.decide(routed, 0)).isEqualTo(RouteDecision.failover(CN, EU));
        assertThat(bands.decide(routed, at(0.8) - 1)).isEqualTo(RouteDecision.failover(CN, EU));
        assertThat(bands.decide(routed, at(0.8))).isEqualTo(spill(US));
        assertThat(bands.decide(routed, Long.MAX_VALUE)).isEqualTo(spill(US));
    }

    @Test
    void loadNoRegionHasRoomFor_overflowsToTheFirstAdmittedRegion() {
        Topology t = Topology.builder().region("cn").region("eu", 2.0).region("us", 2.0).build();
        HealthSnapshot h = up("eu", "us");
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 5, "eu", 1), h);
        RouteDecision routed = Router.of(t).route("cn", h);

        assertThat(bands.decide(routed, at(0.2) - 1).outcome()).isEqualTo(RouteDecision.Outcome.FAILOVER);
        assertThat(bands.decide(routed, at(0.2))).isEqualTo(spill(US));
        assertThat(bands.decide(routed, at(0.6) - 1)).isEqualTo(spill(US));
        assertThat(bands.decide(routed, at(0.6)))
                .isEqualTo(new RouteDecision(RouteDecision.Outcome.OVERFLOW, "cn", EU));
    }

    @Test
    void aFullFirstRegionGetsNoBand_andDownHomesShareRoomInTopologyOrder() {
        // cn (first in the topology) fills eu's 10 of room; ap then finds eu full and goes to us whole.
        Topology t = Topology.builder().region("cn").region("ap").region("eu", 10.0).region("us")
                             .fallback("cn", List.of("eu", "us")).fallback("ap", List.of("eu", "us")).build();
        HealthSnapshot h = up("eu", "us");
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 10, "ap", 5), h);
        Router router = Router.of(t);

        assertThat(bands.decide(router.route("cn", h), Long.MAX_VALUE)).isEqualTo(RouteDecision.failover(CN, EU));
        assertThat(bands.decide(router.route("ap", h), 0))
                .isEqualTo(new RouteDecision(RouteDecision.Outcome.SPILLOVER, "ap", US));
    }

    @Test
    void withoutLoadOrCapacity_everyUserFailsOverToTheFirstRegion_asThePlainRouteDecision() {
        Topology limited = Topology.builder().region("cn").region("eu", 1.0).region("us").build();
        Topology unlimited = Topology.of("cn", "eu", "us");
        HealthSnapshot h = up("eu", "us");
        for (SpilloverBands bands : List.of(SpilloverBands.of(limited, Map.of(), h),
                                            SpilloverBands.of(unlimited, loads("cn", 1000, "eu", 1000), h))) {
            for (long position : new long[] {0, at(0.5), Long.MAX_VALUE}) {
                assertThat(bands.decide(Router.of(limited).route("cn", h), position))
                        .isEqualTo(RouteDecision.failover(CN, EU));
            }
        }
    }

    @Test
    void aDownHomeOfNoLoad_sendsEveryUserToItsFirstAdmittedRegion() {
        Topology t = Topology.builder().region("cn").region("eu", 1.0).region("us").build();
        HealthSnapshot h = up("eu", "us");
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 0, "eu", 1), h);

        for (long position : new long[] {0, at(0.5), Long.MAX_VALUE}) {
            assertThat(bands.decide(Router.of(t).route("cn", h), position)).isEqualTo(RouteDecision.failover(CN, EU));
        }
    }

    @Test
    void aSecondDownHome_findsTheRoomTheFirstOverflowedIntoTaken_andOverflowsWhole() {
        // cn pours 10 of its 15 into us's room and overflows 5 more there; eu then finds no room left in us.
        Topology t = Topology.builder().region("cn").region("eu").region("us", 10.0).build();
        HealthSnapshot h = up("us");
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 15, "eu", 5), h);
        Router router = Router.of(t);

        assertThat(bands.decide(router.route("cn", h), 0)).isEqualTo(RouteDecision.failover(CN, US));
        assertThat(bands.decide(router.route("cn", h), Long.MAX_VALUE))
                .isEqualTo(new RouteDecision(RouteDecision.Outcome.OVERFLOW, "cn", US));
        for (long position : new long[] {0, at(0.5), Long.MAX_VALUE}) {
            assertThat(bands.decide(router.route("eu", h), position))
                    .isEqualTo(new RouteDecision(RouteDecision.Outcome.OVERFLOW, "eu", US));
        }
    }

    @Test
    void decisionsOtherThanFailover_passUnchanged() {
        Topology t = Topology.builder().region("cn").region("eu", 1.0).region("us").build();
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 10), up("eu", "us"));
        RouteDecision writeFailover = new RouteDecision(RouteDecision.Outcome.WRITE_FAILOVER, "cn", US);
        RouteDecision readOnly = new RouteDecision(RouteDecision.Outcome.READ_ONLY, "cn", EU);
        for (RouteDecision d : List.of(RouteDecision.home(EU), RouteDecision.noHealthyRegion(CN),
                                       RouteDecision.unknownRegion("ap"), writeFailover, readOnly)) {
            assertThat(bands.decide(d, Long.MAX_VALUE)).isSameAs(d);
        }
    }

    @Test
    void aHeldDownRegionTakesNoBand_untilItsHoldDownEnds() {
        Topology t = Topology.builder().region("cn").region("eu", 1.0).region("us").build();
        HealthSnapshot h = HealthSnapshot.of(Map.of(CN, RegionHealth.down(), EU, RegionHealth.up(),
                                                    US, RegionHealth.up().healthySince(NOW)));
        Router router = Router.of(t, Duration.ofSeconds(5));
        SpilloverBands held = SpilloverBands.of(t, loads("cn", 10), h, NOW + 1_000, Duration.ofSeconds(5));
        SpilloverBands after = SpilloverBands.of(t, loads("cn", 10), h, NOW + 5_000, Duration.ofSeconds(5));

        assertThat(held.validUntilMs()).isEqualTo(NOW + 4_999);
        assertThat(held.decide(router.route("cn", h, NOW + 1_000), Long.MAX_VALUE))
                .isEqualTo(new RouteDecision(RouteDecision.Outcome.OVERFLOW, "cn", EU));
        assertThat(after.validUntilMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(after.decide(router.route("cn", h, NOW + 5_000), Long.MAX_VALUE)).isEqualTo(spill(US));
    }

    @Test
    void position_isFnv1a64MixedByFmix64_top63Bits() {
        // fnv1a64("bob") = 0x004d4419134a0a54: its top bits alone would put bob first of nearly everyone.
        assertThat(SpilloverBands.position("bob")).isEqualTo(0x7b249b14f2b2a570L);
        assertThat(SpilloverBands.position("carol")).isEqualTo(0x15887eb43d752907L);
        assertThat(SpilloverBands.position("")).isNotNegative();
    }

    @Test
    void position_spreadsSequentialIdsEvenly() {
        int[] deciles = new int[10];
        for (int i = 0; i < 10_000; i++) {
            deciles[(int) (SpilloverBands.position("user-" + i) / (Long.MAX_VALUE / 10 + 1))]++;
        }
        assertThat(java.util.Arrays.stream(deciles).boxed()).allSatisfy(n -> assertThat(n).isBetween(900, 1_100));
    }

    @Test
    void aNegativeLoadIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> SpilloverBands.of(Topology.of("cn"), loads("cn", -5), up("cn")))
                .withMessage("load of home cn: -5.0 (expected: a number >= 0)");
    }

    @Test
    void decide_allocatesNothing() {
        Topology t = Topology.builder().region("cn").region("eu", 40.0).region("us").build();
        HealthSnapshot h = up("eu", "us");
        SpilloverBands bands = SpilloverBands.of(t, loads("cn", 100), h);
        RouteDecision routed = Router.of(t).route("cn", h);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int warm = 0; warm < 2; warm++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                sink += bands.decide(routed, (long) i << 44).outcome().ordinal();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            if (warm == 1) {
                assertThat(allocated).as("bytes allocated by 100,000 decisions").isLessThan(1_024);
            }
        }
        assertThat(sink).isPositive();
    }

}
