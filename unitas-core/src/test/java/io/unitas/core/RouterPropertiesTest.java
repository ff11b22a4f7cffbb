package io.unitas.core;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Invariants of the route decision over random topologies and health snapshots. */
class RouterPropertiesTest {

    @Provide
    Arbitrary<Scenarios> scenarios() {
        return Scenarios.all();
    }

    @Property(tries = 300)
    void route_isDeterministic(@ForAll("scenarios") Scenarios s) {
        Router a = Router.of(s.topology());
        Router b = Router.of(s.topology());
        for (Region home : s.topology().regions()) {
            assertThat(a.route(home, s.health())).isEqualTo(b.route(home, s.health()))
                                                 .isEqualTo(a.route(home.id(), s.health()));
        }
    }

    @Property(tries = 300)
    void route_neverReturnsAnUnhealthyRegion(@ForAll("scenarios") Scenarios s) {
        Router router = Router.of(s.topology());
        for (Region home : s.topology().regions()) {
            RouteDecision d = router.route(home, s.health());
            if (d.hasTarget()) {
                assertThat(s.health().isHealthy(d.target())).as(d.message()).isTrue();
            }
        }
    }

    @Property(tries = 300)
    void route_prefersHome_elseFirstHealthyOfFallbackList_elseNoHealthyRegion(@ForAll("scenarios") Scenarios s) {
        Router router = Router.of(s.topology());
        for (Region home : s.topology().regions()) {
            RouteDecision d = router.route(home, s.health());
            Region expected = s.health().isHealthy(home) ? home
                    : s.topology().fallback(home).stream().filter(s.health()::isHealthy).findFirst().orElse(null);
            assertThat(d.target()).isEqualTo(expected);
            assertThat(d.outcome()).isEqualTo(expected == null ? RouteDecision.Outcome.NO_HEALTHY_REGION
                    : expected.equals(home) ? RouteDecision.Outcome.HOME : RouteDecision.Outcome.FAILOVER);
        }
    }

    @Property(tries = 300)
    void route_leavesItsInputsUntouched(@ForAll("scenarios") Scenarios s) {
        String topologyText = s.topology().toString();
        HealthSnapshot healthCopy = HealthSnapshot.of(s.health().revision(), s.health().regions());
        Router router = Router.of(s.topology());
        for (Region home : s.topology().regions()) {
            router.route(home, s.health());
        }
        router.route("zz", s.health());
        assertThat(s.health()).isEqualTo(healthCopy);
        assertThat(s.topology().toString()).isEqualTo(topologyText);
    }

    @Property(tries = 300)
    void route_unknownHome_isAnOutcomeNamingTheRegion(@ForAll("scenarios") Scenarios s) {
        RouteDecision d = Router.of(s.topology()).route("zz", s.health());
        assertThat(d.outcome()).isEqualTo(RouteDecision.Outcome.UNKNOWN_REGION);
        assertThat(d.message()).isEqualTo("unknown region 'zz'");
    }
}
