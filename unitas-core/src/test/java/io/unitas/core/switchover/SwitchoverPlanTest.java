package io.unitas.core.switchover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Problem;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;

class SwitchoverPlanTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");

    private final Topology topology = Topology.builder()
            .region("cn", 300.0).region("eu", 250.0).region("us", 300.0).build();
    private final Map<String, Region> homes = homes();

    private static Map<String, Region> homes() {
        Map<String, Region> homes = new LinkedHashMap<>();
        homes.put("u-sh", CN);
        homes.put("u-bj", CN);
        homes.put("u-de", EU);
        homes.put("u-ny", US);
        return homes;
    }

    private static HealthSnapshot healthy(String... down) {
        Map<Region, Boolean> flags = new LinkedHashMap<>();
        for (String id : List.of("cn", "eu", "us")) {
            flags.put(Region.of(id), !List.of(down).contains(id));
        }
        return HealthSnapshot.ofFlags(flags);
    }

    @Test
    void movesUnitsAndShowsServedLoadBeforeAndAfter() {
        SwitchoverPlan plan = SwitchoverPlan.of(topology, healthy(), homes, u -> 100, List.of("u-sh"), "eu",
                                                false);

        assertThat(plan.accepted()).isTrue();
        assertThat(plan.moves()).containsExactly(new SwitchoverPlan.Move("u-sh", CN, EU, 100));
        assertThat(plan.loadBefore()).containsEntry(CN, 200.0).containsEntry(EU, 100.0);
        assertThat(plan.loadAfter()).containsEntry(CN, 100.0).containsEntry(EU, 200.0);
        assertThat(plan.origins()).containsExactly(Map.entry("u-sh", CN));
    }

    @Test
    void refusesAReadOnlyTarget_evenWhenForced() {
        HealthSnapshot euReadOnly = healthy().with(1, EU, new RegionHealth(true, false, 40, 0.6,
                                                                           List.of("postgres: read-only")));

        SwitchoverPlan plan = SwitchoverPlan.of(topology, euReadOnly, homes, u -> 1, List.of("u-sh"), "eu", true);

        assertThat(plan.accepted()).isFalse();
        assertThat(plan.refusals()).containsExactly(new Problem("target",
                "eu is read-only and cannot take the units' writes (postgres: read-only)"));
    }

    @Test
    void aRegionAlreadyOverloaded_thatTheMoveDoesNotAddTo_isNoReasonToRefuse() {
        // eu serves 300 of its 250 before and after: the move is between cn and us.
        SwitchoverPlan plan = SwitchoverPlan.of(topology, healthy(), homes, u -> u.equals("u-de") ? 300 : 100,
                                                List.of("u-sh"), "us", false);

        assertThat(plan.accepted()).isTrue();
        assertThat(plan.refusals()).isEmpty();
    }

    @Test
    void refusesAnOverloadedTarget_unlessForced() {
        SwitchoverPlan refused = SwitchoverPlan.of(topology, healthy(), homes, u -> 100,
                                                   List.of("u-sh", "u-bj"), "eu", false);
        assertThat(refused.refusals()).containsExactly(new Problem("regions.eu",
                "eu would serve 300 of capacity 250 (expected: <= capacity, or force)"));

        SwitchoverPlan forced = SwitchoverPlan.of(topology, healthy(), homes, u -> 100,
                                                  List.of("u-sh", "u-bj"), "eu", true);
        assertThat(forced.accepted()).isTrue();
        assertThat(forced.warnings()).hasSize(1);
    }

    @Test
    void refusesAnUnhealthyTarget_evenWhenForced() {
        SwitchoverPlan plan = SwitchoverPlan.of(topology, healthy("eu"), homes, u -> 1, List.of("u-sh"), "eu",
                                                true);

        assertThat(plan.refusals()).extracting(Problem::path).containsExactly("target");
    }

    @Test
    void refusesToLeaveAUnitWithNoServingRegion() {
        Topology noFallback = Topology.builder().region("cn").region("eu").fallback("eu", List.of()).build();

        SwitchoverPlan plan = SwitchoverPlan.of(noFallback, healthy("eu"), homes, u -> 1, List.of("u-sh"), "eu",
                                                true);

        assertThat(plan.refusals()).extracting(Problem::toString).containsExactly(
                "target: eu is not healthy",
                "units[0]: unit 'u-sh' would be left with no serving region");
    }

    @Test
    void namesEveryBadUnitByItsPath() {
        SwitchoverPlan plan = SwitchoverPlan.of(topology, healthy(), homes, u -> 1,
                                                List.of("u-de", "nope", "u-sh", "u-sh"), "eu", false);

        assertThat(plan.refusals()).containsExactly(
                new Problem("units[0]", "unit 'u-de' already has home eu"),
                new Problem("units[1]", "unknown unit 'nope'"),
                new Problem("units[3]", "duplicate unit 'u-sh'"));
    }

    @Test
    void refusesAnUnknownTargetAndAnEmptyUnitList() {
        SwitchoverPlan plan = SwitchoverPlan.of(topology, healthy(), homes, u -> 1, List.of(), "mars", false);

        assertThat(plan.refusals()).containsExactly(
                new Problem("target", "unknown region 'mars' (expected one of: cn, eu, us)"),
                new Problem("units", "[] (expected: at least one unit to move)"));
    }
}
