package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;

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
                Arguments.of("us falls to eu before cn when eu is first healthy", "us", flags("cn", false, "eu", true),
                             "eu"),
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
        Topology t = Topology.builder().region("cn").region("eu").region("us").fallback("us", List.of("cn", "eu"))
                             .build();
        RouteDecision d = Router.of(t).route("us", flags("cn", true, "eu", true));
        assertThat(d.target()).isEqualTo(Region.of("cn"));
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
}
