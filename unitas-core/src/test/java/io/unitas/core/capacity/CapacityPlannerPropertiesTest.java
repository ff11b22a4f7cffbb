package io.unitas.core.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.Scenarios;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Invariants of capacity planning over random topologies, health snapshots and users. */
class CapacityPlannerPropertiesTest {

    @Provide
    Arbitrary<Scenarios> scenarios() {
        return Scenarios.all();
    }

    @Property(tries = 300)
    void cascade_terminates_withAtMostOneStepPerRegion_eachTrippingHealthyRegions(@ForAll("scenarios") Scenarios s) {
        Cascade c = CapacityPlanner.of(s.topology()).cascade(s.loadByHome(), s.health());
        assertThat(c.steps().size()).isLessThanOrEqualTo(s.topology().regions().size());
        Set<Region> tripped = new HashSet<>();
        for (CascadeStep step : c.steps()) {
            assertThat(step.tripped()).isNotEmpty();
            for (Region r : step.tripped()) {
                assertThat(s.health().isHealthy(r)).isTrue();
                assertThat(tripped.add(r)).as("tripped twice: " + r).isTrue();
            }
        }
    }

    @Property(tries = 300)
    void cascade_neverLeavesATrippedRegionServing_andEndsWithNothingOverloaded(@ForAll("scenarios") Scenarios s) {
        CapacityPlanner planner = CapacityPlanner.of(s.topology());
        Cascade c = planner.cascade(s.loadByHome(), s.health());
        for (CascadeStep step : c.steps()) {
            for (Region r : step.tripped()) {
                assertThat(c.health().isHealthy(r)).isFalse();
                assertThat(c.plan().of(r).load()).isZero();
            }
        }
        assertThat(c.plan().fits()).isTrue();
        assertThat(c.plan()).isEqualTo(planner.plan(s.loadByHome(), c.health()));
    }

    @Property(tries = 300)
    void plan_isTheRouteDecisionSummedPerRegion(@ForAll("scenarios") Scenarios s) {
        LoadPlan plan = CapacityPlanner.of(s.topology()).plan(s.loadByHome(), s.health());
        Router router = Router.of(s.topology());
        Map<Region, Double> expected = new HashMap<>();
        s.users().forEach(u -> {
            Region t = router.route(u.home(), s.health()).target();
            if (t != null) {
                expected.merge(t, u.load(), Double::sum);
            }
        });
        for (RegionLoad r : plan.regions()) {
            assertThat(r.load()).isEqualTo(expected.getOrDefault(r.region(), 0.0));
        }
    }

    @Property(tries = 300)
    void spillover_isTheBandsUserByUser_usesNoUnhealthyRegion_andIgnoresInputOrder(@ForAll("scenarios") Scenarios s) {
        CapacityPlanner planner = CapacityPlanner.of(s.topology());
        Spillover sp = planner.spillover(s.users(), s.health());
        Router router = Router.of(s.topology());
        Map<String, Double> loadByHome = new HashMap<>();
        s.users().stream().filter(u -> s.topology().region(u.home()).isPresent())
                 .forEach(u -> loadByHome.merge(u.home(), u.load(), Double::sum));
        SpilloverBands bands = SpilloverBands.of(s.topology(), loadByHome, s.health());
        List<UserLoad> reversed = new java.util.ArrayList<>(s.users());
        java.util.Collections.reverse(reversed);
        List<Placement> backwards = planner.spillover(reversed, s.health()).placements();
        for (int i = 0; i < s.users().size(); i++) {
            UserLoad u = s.users().get(i);
            Placement p = sp.placements().get(i);
            if (p.target() != null) {
                assertThat(s.health().isHealthy(p.target())).isTrue();
            }
            RouteDecision d = bands.decide(router.route(u.home(), s.health()), SpilloverBands.position(u.userId()));
            assertThat(p.target()).isEqualTo(d.target());
            assertThat(p.outcome()).isEqualTo(d.outcome());
            assertThat(backwards.get(s.users().size() - 1 - i)).isEqualTo(p);
        }
    }

    @Property(tries = 300)
    void spillover_keepsHealthyHomesHome_isDeterministic_andLeavesInputUntouched(@ForAll("scenarios") Scenarios s) {
        List<UserLoad> before = List.copyOf(s.users());
        HealthSnapshot healthBefore = HealthSnapshot.of(s.health().revision(), s.health().regions());
        CapacityPlanner planner = CapacityPlanner.of(s.topology());
        Spillover a = planner.spillover(s.users(), s.health());
        Spillover b = CapacityPlanner.of(s.topology()).spillover(s.users(), s.health());

        assertThat(a).isEqualTo(b);
        assertThat(s.users()).isEqualTo(before);
        assertThat(s.health()).isEqualTo(healthBefore);
        for (int i = 0; i < before.size(); i++) {
            UserLoad u = before.get(i);
            Placement p = a.placements().get(i);
            assertThat(p.userId()).isEqualTo(u.userId());
            boolean homeUp = s.topology().region(u.home()).map(s.health()::isHealthy).orElse(false);
            assertThat(p.outcome() == RouteDecision.Outcome.HOME).isEqualTo(homeUp);
        }
    }

    @Property(tries = 300)
    void cascadeWithSpillover_terminates_andItsLastRoundIsTheSpilloverOverTheSurvivors(
            @ForAll("scenarios") Scenarios s) {
        CapacityPlanner planner = CapacityPlanner.of(s.topology());
        Cascade c = planner.cascadeWithSpillover(s.users(), s.health());
        assertThat(c.steps().size()).isLessThanOrEqualTo(s.topology().regions().size());
        assertThat(c.plan()).isEqualTo(planner.spillover(s.users(), c.health()).plan());
        assertThat(c.plan().regions()).noneMatch(r -> r.overloaded() && c.health().isHealthy(r.region()));
    }

    @Property(tries = 300)
    void spilloverOrder_equalsFnv1aOverTheEncodedBytes(@ForAll String id) {
        long h = 0xcbf29ce484222325L;
        for (byte b : id.getBytes(StandardCharsets.UTF_8)) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        assertThat(CapacityPlanner.spilloverOrder(id)).isEqualTo(h);
    }
}
