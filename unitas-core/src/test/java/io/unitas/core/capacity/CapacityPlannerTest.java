package io.unitas.core.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Topology;

class CapacityPlannerTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

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

    private static List<Region> regions(String... ids) {
        return java.util.Arrays.stream(ids).map(Region::of).toList();
    }

    @Test
    void plan_routesEachHomesLoad_andCountsUnknownOrStrandedLoadAsUnplaced() {
        Topology t = Topology.builder().region("cn", 100.0).region("eu", 50.0).region("us").build();
        LoadPlan plan = CapacityPlanner.of(t).plan(loads("cn", 80, "eu", 30, "us", 10, "ap", 7), up("eu", "us"));

        assertThat(plan.regions()).containsExactly(
                new RegionLoad(CN, 0, OptionalDouble.of(100)),
                new RegionLoad(EU, 110, OptionalDouble.of(50)),
                new RegionLoad(US, 10, OptionalDouble.empty()));
        assertThat(plan.unplaced()).isEqualTo(7);
        assertThat(plan.overloaded()).containsExactly(EU);
        assertThat(plan.fits()).isFalse();
        assertThat(plan.of(US).overloaded()).isFalse();
    }

    @Test
    void plan_rejectsANegativeLoad() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> CapacityPlanner.of(Topology.of("cn")).plan(loads("cn", -5), up("cn")))
                .withMessage("load of home cn: -5.0 (expected: a number >= 0)");
    }

    @Test
    void cascade_nothingOverloaded_hasNoSteps_andKeepsTheHealth() {
        Topology t = Topology.builder().region("cn", 100.0).region("eu", 50.0).build();
        HealthSnapshot health = up("cn", "eu");
        Cascade c = CapacityPlanner.of(t).cascade(loads("cn", 100, "eu", 50), health);
        assertThat(c.steps()).isEmpty();
        assertThat(c.health()).isEqualTo(health);
    }

    @Test
    void cascade_tripsOverloadedRegionsRoundByRound_untilARoundTripsNothing() {
        // a is down; its load overloads b, then a's and b's load together overload c, and d takes everything.
        Topology t = Topology.builder().region("a", 10.0).region("b", 20.0).region("c", 40.0).region("d").build();
        Cascade c = CapacityPlanner.of(t).cascade(loads("a", 15, "b", 10, "c", 20, "d", 0), up("b", "c", "d"));

        assertThat(c.steps()).containsExactly(new CascadeStep(1, regions("b")), new CascadeStep(2, regions("c")));
        assertThat(c.health().isHealthy(Region.of("b"))).isFalse();
        assertThat(c.health().get(Region.of("b")).reasons())
                .containsExactly("tripped in cascade step 1: load 25.0 > capacity 20.0");
        assertThat(c.plan().of(Region.of("d")).load()).isEqualTo(45);
        assertThat(c.plan().fits()).isTrue();
    }

    @Test
    void cascade_tripsEveryOverloadedRegionOfARoundInOneStep_inTopologyOrder() {
        Topology t = Topology.builder().region("cn", 5.0).region("eu", 5.0).region("us").build();
        Cascade c = CapacityPlanner.of(t).cascade(loads("eu", 6, "cn", 10, "us", 1), up("cn", "eu", "us"));
        assertThat(c.steps()).containsExactly(new CascadeStep(1, regions("cn", "eu")));
        assertThat(c.plan().of(US).load()).isEqualTo(17);
    }

    @Test
    void cascade_canEndWithNoHealthyRegion_leavingTheLoadUnplaced() {
        Topology t = Topology.builder().region("cn", 5.0).region("eu", 5.0).build();
        Cascade c = CapacityPlanner.of(t).cascade(loads("cn", 4, "eu", 4), up("eu"));
        assertThat(c.steps()).containsExactly(new CascadeStep(1, regions("eu")));
        assertThat(c.plan().unplaced()).isEqualTo(8);
    }

    @Test
    void spillover_splitsADownHomesUsersIntoBandsOfTheirHash_failoverThenSpilloverThenOverflow() {
        // eu has 2 - 1 (frank) of room, us 2: cn's 5 is 1 to eu (position below 0.2 of the range), 2 to us (below
        // 0.6), 2 overflow to eu. Position / 2^63: carol 0.168, alice 0.207, judy 0.390, erin 0.628, bob 0.962.
        Topology t = Topology.builder().region("cn").region("eu", 2.0).region("us", 2.0).build();
        List<UserLoad> users = List.of(UserLoad.of("alice", "cn"), UserLoad.of("bob", "cn"),
                UserLoad.of("carol", "cn"), UserLoad.of("erin", "cn"), UserLoad.of("judy", "cn"),
                UserLoad.of("frank", "eu"));

        Spillover s = CapacityPlanner.of(t).spillover(users, up("eu", "us"));

        assertThat(s.placements()).containsExactly(
                new Placement("alice", "cn", US, RouteDecision.Outcome.SPILLOVER),
                new Placement("bob", "cn", EU, RouteDecision.Outcome.OVERFLOW),
                new Placement("carol", "cn", EU, RouteDecision.Outcome.FAILOVER),
                new Placement("erin", "cn", EU, RouteDecision.Outcome.OVERFLOW),
                new Placement("judy", "cn", US, RouteDecision.Outcome.SPILLOVER),
                new Placement("frank", "eu", EU, RouteDecision.Outcome.HOME));
        assertThat(s.plan().of(EU).load()).isEqualTo(4);
        assertThat(s.plan().of(US).load()).isEqualTo(2);
    }

    @Test
    void spillover_bandsWeighLoad_notUsers() {
        // cn's 5 is 2 to eu (below 0.4) and 3 to us: alice (0.207) and carol (0.168) both land in eu's band,
        // whatever their own loads, so eu carries 5 over its capacity of 2.
        Topology t = Topology.builder().region("cn").region("eu", 2.0).region("us").build();
        List<UserLoad> users = List.of(new UserLoad("alice", "cn", 2), new UserLoad("carol", "cn", 3));
        Spillover s = CapacityPlanner.of(t).spillover(users, up("eu", "us"));
        assertThat(s.placements()).extracting(Placement::outcome)
                                  .containsExactly(RouteDecision.Outcome.FAILOVER, RouteDecision.Outcome.FAILOVER);
        assertThat(s.plan().overloaded()).containsExactly(EU);
    }

    @Test
    void spillover_withManyUsers_eachRegionCarriesCloseToItsShare() {
        Topology t = Topology.builder().region("cn").region("eu", 3_000.0).region("us", 5_000.0).build();
        List<UserLoad> users = new java.util.ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            users.add(UserLoad.of("user-" + i, "cn"));
        }
        Spillover s = CapacityPlanner.of(t).spillover(users, up("eu", "us"));
        // Shares: 3,000 failover to eu, 5,000 spillover to us, 2,000 overflow to eu.
        Map<RouteDecision.Outcome, Long> byOutcome = new java.util.EnumMap<>(RouteDecision.Outcome.class);
        s.placements().forEach(p -> byOutcome.merge(p.outcome(), 1L, Long::sum));
        assertThat(byOutcome.get(RouteDecision.Outcome.FAILOVER)).isCloseTo(3_000L, org.assertj.core.data.Offset.offset(100L));
        assertThat(byOutcome.get(RouteDecision.Outcome.SPILLOVER)).isCloseTo(5_000L, org.assertj.core.data.Offset.offset(100L));
        assertThat(byOutcome.get(RouteDecision.Outcome.OVERFLOW)).isCloseTo(2_000L, org.assertj.core.data.Offset.offset(100L));
    }

    @Test
    void spillover_theSameIdAlwaysLandsInTheSameBand_whateverTheOtherUsers() {
        Topology t = Topology.builder().region("cn").region("eu", 1.0).region("us").build();
        List<UserLoad> users = List.of(new UserLoad("same", "cn", 1), new UserLoad("same", "cn", 1));
        Spillover s = CapacityPlanner.of(t).spillover(users, up("eu", "us"));
        assertThat(s.placements().get(0)).isEqualTo(s.placements().get(1));
    }

    @Test
    void spillover_homeUsersStayHomeEvenOverCapacity_andUnknownOrStrandedUsersHaveNoTarget() {
        Topology t = Topology.builder().region("cn", 1.0).region("eu").fallback("eu", List.of()).build();
        List<UserLoad> users = List.of(new UserLoad("a", "cn", 5), UserLoad.of("b", "ap"), UserLoad.of("c", "eu"));
        Spillover s = CapacityPlanner.of(t).spillover(users, up("cn"));
        assertThat(s.placements()).extracting(Placement::outcome).containsExactly(
                RouteDecision.Outcome.HOME, RouteDecision.Outcome.UNKNOWN_REGION, RouteDecision.Outcome.NO_HEALTHY_REGION);
        assertThat(s.plan().overloaded()).containsExactly(CN);
        assertThat(s.plan().unplaced()).isEqualTo(2);
    }

    @Test
    void cascadeWithSpillover_tripsOnlyWhatSpilloverCannotAvoid() {
        // Plain routing sends all of cn's load to eu, then to us, tripping both; spillover splits it between them.
        Topology t = Topology.builder().region("cn").region("eu", 2.0).region("us", 2.0).build();
        // cn's 3 is 2 to eu (position below 2/3 of the range: alice, carol) and 1 to us (bob).
        List<UserLoad> users = List.of(UserLoad.of("alice", "cn"), UserLoad.of("bob", "cn"),
                                       UserLoad.of("carol", "cn"));
        CapacityPlanner planner = CapacityPlanner.of(t);

        assertThat(planner.cascade(loads("cn", 3), up("eu", "us")).steps())
                .containsExactly(new CascadeStep(1, regions("eu")), new CascadeStep(2, regions("us")));
        Cascade c = planner.cascadeWithSpillover(users, up("eu", "us"));
        assertThat(c.steps()).isEmpty();
        assertThat(c.plan()).isEqualTo(planner.spillover(users, c.health()).plan());
    }

    @Test
    void cascadeWithSpillover_overflowTripsARegion_andTheNextRoundPlacesOverTheSurvivors() {
        Topology t = Topology.builder().region("cn").region("eu", 1.0).region("us").build();
        List<UserLoad> users = List.of(new UserLoad("alice", "cn", 2), new UserLoad("bob", "eu", 2));
        Cascade c = CapacityPlanner.of(t).cascadeWithSpillover(users, up("eu", "us"));
        assertThat(c.steps()).containsExactly(new CascadeStep(1, regions("eu")));
        assertThat(c.plan().of(US).load()).isEqualTo(4);
    }

    @ParameterizedTest(name = "fnv1a64(\"{0}\") = {1}")
    @CsvSource({"'', cbf29ce484222325", "a, af63dc4c8601ec8c", "foobar, 85944171f73967e8",
                "bob, 004d4419134a0a54", "erin, b2294d606fcdfc59"})
    void spilloverOrder_isTheFnv1a64HashOfTheUtf8Id(String id, String hex) {
        assertThat(CapacityPlanner.spilloverOrder(id)).isEqualTo(Long.parseUnsignedLong(hex, 16));
    }
}
