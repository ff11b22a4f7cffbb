package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The seed's routing_test.go, case by case and under its names, plus the decision values' contract. */
class RouterTest {

    private static final Topology TOPOLOGY = Topology.of("cn", "eu", "us");
    private static final Router ROUTER = Router.of(TOPOLOGY);

    private static HealthSnapshot flags(Object... regionAndUp) {
        Map<Region, Boolean> m = new HashMap<>();
        for (int i = 0; i < regionAndUp.length; i += 2) {
            m.put(Region.of((String) regionAndUp[i]), (Boolean) regionAndUp[i + 1]);
        }
        return HealthSnapshot.ofFlags(m);
    }

    @Test
    @DisplayName("TestRoutePrefersHomeRegion")
    void routePrefersHomeRegion() {
        HealthSnapshot healthy = flags("cn", true, "eu", true, "us", true);
        for (String region : List.of("cn", "eu", "us")) {
            RouteDecision d = ROUTER.route(region, healthy);
            assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.HOME);
            assertThat(d.target()).isEqualTo(Region.of(region));
        }
    }

    static Stream<Arguments> fallbackOrder() {
        return Stream.of(
                Arguments.of("cn falls to us when eu also down", "cn", flags("cn", false, "eu", false, "us", true), "us"),
                Arguments.of("cn falls to eu first", "cn", flags("eu", true, "us", true), "eu"),
                Arguments.of("eu falls to cn first", "eu", flags("cn", true, "us", true), "cn"),
                // Both candidates healthy, so only the order can decide: the global order puts cn before eu.
                Arguments.of("us falls to cn before eu", "us", flags("cn", true, "eu", true), "cn"),
                Arguments.of("us falls to eu when cn is down", "us", flags("cn", false, "eu", true), "eu"),
                Arguments.of("us falls to cn when eu is down", "us", flags("cn", true, "eu", false), "cn"));
    }

    @DisplayName("TestRouteFallbackOrder")
    @ParameterizedTest(name = "{0}")
    @MethodSource
    void fallbackOrder(String name, String user, HealthSnapshot healthy, String want) {
        RouteDecision d = ROUTER.route(user, healthy);
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.FAILOVER);
        assertThat(d.target()).isEqualTo(Region.of(want));
        assertThat(d.message()).isEqualTo("home region " + user + " is unhealthy; failing over to " + want);
    }

    @Test
    @DisplayName("TestRouteNoHealthyRegion")
    void routeNoHealthyRegion() {
        RouteDecision allDown = ROUTER.route("cn", flags("eu", false));
        assertThat(allDown.outcome()).isEqualTo(RouteDecision.Outcome.NO_HEALTHY_REGION);
        assertThat(allDown.hasTarget()).isFalse();
        assertThat(allDown.message()).isEqualTo("no healthy region for home region cn");

        RouteDecision empty = ROUTER.route("eu", HealthSnapshot.empty());
        assertThat(empty.outcome()).isEqualTo(RouteDecision.Outcome.NO_HEALTHY_REGION);
        assertThat(empty.message()).contains("eu");
    }

    @Test
    void aWriteWithNoHealthyRegion_hasNoTarget_underEitherReadOnlyPolicy() {
        for (ReadOnlyPolicy policy : ReadOnlyPolicy.values()) {
            RouteDecision d = ROUTER.routeWrite("cn", flags("cn", false, "eu", false, "us", false), 0, policy);
            assertThat(d).isEqualTo(RouteDecision.noHealthyRegion(Region.of("cn")));
        }
    }

    @Test
    void aRouterTellsTheTopologyAndHoldDownItRoutesBy() {
        Router router = Router.of(TOPOLOGY, java.time.Duration.ofSeconds(5));

        assertThat(router.topology()).isEqualTo(TOPOLOGY);
        assertThat(router.holdDown()).isEqualTo(java.time.Duration.ofSeconds(5));
    }

    @Test
    void readOnlyPolicies_areNamedInFilesByTheirLowercaseNames_andReadBack() {
        assertThat(ReadOnlyPolicy.values()).extracting(ReadOnlyPolicy::jsonName).containsExactly("fence", "failover");
        for (ReadOnlyPolicy p : ReadOnlyPolicy.values()) {
            assertThat(ReadOnlyPolicy.fromJson(p.jsonName())).isEqualTo(p);
        }
        assertThatThrownBy(() -> ReadOnlyPolicy.fromJson("FENCE")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("'FENCE' (expected: fence or failover)");
    }

    @Test
    @DisplayName("TestRouteRejectsUnknownUserRegion")
    void routeRejectsUnknownUserRegion() {
        RouteDecision d = ROUTER.route("ap", flags("cn", true));
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.UNKNOWN_REGION);
        assertThat(d.target()).isNull();
        assertThat(d.home()).isEqualTo("ap");
        assertThat(d.message()).isEqualTo("unknown region 'ap'");
    }

    @Test
    @DisplayName("TestRouteDoesNotMutateHealthMap")
    void routeDoesNotMutateHealthMap() {
        Map<Region, Boolean> healthy = new HashMap<>(Map.of(Region.of("cn"), false, Region.of("eu"), true,
                                                            Region.of("us"), true));
        Map<Region, Boolean> before = Map.copyOf(healthy);
        HealthSnapshot snapshot = HealthSnapshot.ofFlags(healthy);
        HealthSnapshot snapshotBefore = HealthSnapshot.ofFlags(before);

        RouteDecision d = ROUTER.route("cn", snapshot);

        assertThat(d.target()).isEqualTo(Region.of("eu"));
        assertThat(healthy).isEqualTo(before);
        assertThat(snapshot).isEqualTo(snapshotBefore);
    }

    @Test
    void route_explicitFallbackList_overridesGlobalOrder() {
        // The reverse of the global order, both healthy: only the explicit list can pick eu.
        Topology t = Topology.builder().region("cn").region("eu").region("us").fallback("us", List.of("eu", "cn"))
                             .build();
        RouteDecision d = Router.of(t).route("us", flags("cn", true, "eu", true));
        assertThat(d.target()).isEqualTo(Region.of("eu"));
    }

    @Test
    void route_explicitFallbackList_neverFallsToRegionsOutsideIt() {
        Topology t = Topology.builder().region("cn").region("eu").region("us").fallback("us", List.of("eu")).build();
        RouteDecision d = Router.of(t).route("us", flags("cn", true, "eu", false));
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.NO_HEALTHY_REGION);
    }

    @Test
    void route_knownHome_returnsTheSameDecisionInstance_soTheHotPathAllocatesNothing() {
        HealthSnapshot h = flags("cn", false, "eu", true);
        assertThat(ROUTER.route("cn", h)).isSameAs(ROUTER.route(Region.of("cn"), h));
    }

    @Test
    void routeDecision_targetMustMatchOutcome() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new RouteDecision(RouteDecision.Outcome.HOME, "cn", null))
                .withMessage("target: null (expected: a region for outcome home)");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new RouteDecision(RouteDecision.Outcome.UNKNOWN_REGION, "ap", Region.of("cn")))
                .withMessage("target: cn (expected: none for outcome unknown_region)");
    }

    private static final long NOW = 1_000_000;
    private static final RegionHealth READ_ONLY =
            new RegionHealth(true, false, 80, 0.6, List.of("postgres: read-only (in recovery)"));

    private static HealthSnapshot partial(RegionHealth cn) {
        return HealthSnapshot.of(Map.of(Region.of("cn"), cn, Region.of("eu"), RegionHealth.up(),
                                        Region.of("us"), RegionHealth.up()));
    }

    @Test
    void readOnlyHome_readsStayHome() {
        RouteDecision d = ROUTER.route("cn", partial(READ_ONLY), NOW);
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.HOME);
        assertThat(d.target()).isEqualTo(Region.of("cn"));
    }

    @Test
    void readOnlyHome_writesAreRefusedUnderFence() {
        RouteDecision d = ROUTER.routeWrite("cn", partial(READ_ONLY), NOW, ReadOnlyPolicy.FENCE);
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.READ_ONLY);
        assertThat(d.hasTarget()).isFalse();
        assertThat(d.target()).isEqualTo(Region.of("cn"));
        assertThat(d.message()).isEqualTo("writes for home region cn are refused: cn is read-only");
    }

    @Test
    void readOnlyHome_writesGoToTheFirstWritableFallbackUnderFailover() {
        RegionHealth euReadOnly = new RegionHealth(true, false, 0, 0.6, List.of());
        HealthSnapshot h = HealthSnapshot.of(Map.of(Region.of("cn"), READ_ONLY, Region.of("eu"), euReadOnly,
                                                    Region.of("us"), RegionHealth.up()));
        RouteDecision d = ROUTER.routeWrite("cn", h, NOW, ReadOnlyPolicy.FAILOVER);
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.WRITE_FAILOVER);
        assertThat(d.target()).isEqualTo(Region.of("us"));
        assertThat(ROUTER.routeWrite("cn", partial(READ_ONLY), NOW, ReadOnlyPolicy.FAILOVER).target())
                .isEqualTo(Region.of("eu"));
    }

    @Test
    void readOnlyHome_failoverWithNoWritableRegion_refuses() {
        RegionHealth ro = new RegionHealth(true, false, 0, 0.6, List.of());
        HealthSnapshot h = HealthSnapshot.of(Map.of(Region.of("cn"), ro, Region.of("eu"), ro));
        RouteDecision d = ROUTER.routeWrite("cn", h, NOW, ReadOnlyPolicy.FAILOVER);
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.READ_ONLY);
        assertThat(d.target()).isEqualTo(Region.of("cn"));
    }

    @Test
    void writableHome_writesGoHomeWhateverThePolicy() {
        for (ReadOnlyPolicy p : ReadOnlyPolicy.values()) {
            assertThat(ROUTER.routeWrite("cn", partial(RegionHealth.up()), NOW, p))
                    .isSameAs(ROUTER.route("cn", partial(RegionHealth.up()), NOW));
        }
    }

    @Test
    void holdDown_aRegionHealthyForLessThanTheHoldDownTakesNoTraffic_thenTakesItBack() {
        Router router = Router.of(TOPOLOGY, java.time.Duration.ofSeconds(5));
        HealthSnapshot h = partial(RegionHealth.up().healthySince(NOW));

        assertThat(router.route("cn", h, NOW).target()).isEqualTo(Region.of("eu"));
        assertThat(router.route("cn", h, NOW + 4_999).outcome()).isEqualTo(RouteDecision.Outcome.FAILOVER);
        assertThat(router.route("cn", h, NOW + 5_000).outcome()).isEqualTo(RouteDecision.Outcome.HOME);
        // The steady state, as offline planning asks for it, ignores the hold-down.
        assertThat(router.route("cn", h).outcome()).isEqualTo(RouteDecision.Outcome.HOME);
        // Time read back (another thread's older clock reading) decides by its own time, not the memo's.
        assertThat(router.route("cn", h, NOW + 1).outcome()).isEqualTo(RouteDecision.Outcome.FAILOVER);
    }

    @Test
    void holdDown_aRegionHealthySinceUnknownIsAdmittedAtOnce() {
        Router router = Router.of(TOPOLOGY, java.time.Duration.ofSeconds(5));
        assertThat(router.route("cn", partial(RegionHealth.up()), NOW).outcome())
                .isEqualTo(RouteDecision.Outcome.HOME);
    }

    @Test
    void holdDown_heldDownFallbacksAreSkippedToo() {
        Router router = Router.of(TOPOLOGY, java.time.Duration.ofSeconds(5));
        HealthSnapshot h = HealthSnapshot.of(Map.of(Region.of("eu"), RegionHealth.up().healthySince(NOW),
                                                    Region.of("us"), RegionHealth.up()));
        assertThat(router.route("cn", h, NOW + 10).target()).isEqualTo(Region.of("us"));
        assertThat(router.route("cn", h, NOW + 5_000).target()).isEqualTo(Region.of("eu"));
    }

    @Test
    void healthySince_isFilledInFromThePreviousSnapshotOnTheTransitionOnly() {
        HealthSnapshot down = HealthSnapshot.ofFlags(Map.of(Region.of("cn"), false, Region.of("eu"), true));
        HealthSnapshot up = HealthSnapshot.ofFlags(Map.of(Region.of("cn"), true, Region.of("eu"), true));

        assertThat(up.since(null, NOW)).isSameAs(up);
        HealthSnapshot recovered = up.since(down, NOW);
        assertThat(recovered.get(Region.of("cn")).healthySinceMs()).isEqualTo(NOW);
        assertThat(recovered.get(Region.of("eu")).healthySinceMs()).isEqualTo(RegionHealth.SINCE_UNKNOWN);
        assertThat(up.since(recovered, NOW + 700).get(Region.of("cn")).healthySinceMs()).isEqualTo(NOW);
        assertThat(down.since(recovered, NOW + 800).get(Region.of("cn")).healthy()).isFalse();
    }

    @Test
    void holdDown_negativeIsRefused() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> Router.of(TOPOLOGY, java.time.Duration.ofSeconds(-1)))
                .withMessage("hold_down: PT-1S (expected: >= 0)");
    }

    @Test
    void route_readsAndWritesUnderHoldDown_allocateNothingOnceTheSnapshotIsSeen() {
        Router router = Router.of(TOPOLOGY, java.time.Duration.ofSeconds(5));
        HealthSnapshot h = HealthSnapshot.of(Map.of(Region.of("cn"), READ_ONLY,
                                                    Region.of("eu"), RegionHealth.up().healthySince(NOW),
                                                    Region.of("us"), RegionHealth.up()));
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int warm = 0; warm < 2; warm++) { // the first round builds the memo and warms the JIT
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 100_000; i++) {
                long now = NOW + 1_000 + (i & 1023); // inside the hold-down of eu: one memo serves them all
                sink += router.route("eu", h, now).outcome().ordinal();
                sink += router.routeWrite("cn", h, now, ReadOnlyPolicy.FAILOVER).outcome().ordinal();
                sink += router.routeWrite("cn", h, now, ReadOnlyPolicy.FENCE).outcome().ordinal();
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            if (warm == 1) {
                assertThat(allocated).as("bytes allocated by 300,000 decisions").isLessThan(1_024);
            }
        }
        assertThat(sink).isPositive();
    }
}
