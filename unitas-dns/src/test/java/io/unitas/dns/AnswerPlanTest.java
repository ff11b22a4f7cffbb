package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingSnapshot;

class AnswerPlanTest {

    private static final Region CN = Region.of("cn");
    private static final Region EU = Region.of("eu");
    private static final Region US = Region.of("us");
    private static final Topology TOPOLOGY = Topology.of("cn", "eu", "us");

    private static HealthSnapshot health(boolean cn, boolean eu, boolean us) {
        return HealthSnapshot.ofFlags(Map.of(CN, cn, EU, eu, US, us));
    }

    private static AnswerPlan plan(HealthSnapshot health, Region client, Region lastHealthy) {
        return AnswerPlan.of(state(health, Duration.ZERO), client, null, lastHealthy, 0, 300, 30);
    }

    /** The routing state DNS follows: a topology without units (no bands), the health as given. */
    private static RoutingSnapshot state(HealthSnapshot health, Duration holdDown) {
        return RoutingSnapshot.of(TOPOLOGY, null, health, WriteFences.none(), () -> 0L, 0, holdDown);
    }

    @Test
    void aHealthyHomeAnswersWithTheFullTtl_andItsFallbackOrderForSrv() {
        AnswerPlan p = plan(health(true, true, true), CN, null);
        assertThat(p).isEqualTo(new AnswerPlan(CN, AnswerPlan.Kind.HOME, 300, List.of(CN, EU, US)));
    }

    @Test
    void cnFallsToEuFirst_withTheMinimumTtl() {
        // eu and us both healthy, to prove eu is chosen by order
        AnswerPlan p = plan(health(false, true, true), CN, null);
        assertThat(p.serving()).isEqualTo(EU);
        assertThat(p.kind()).isEqualTo(AnswerPlan.Kind.FAILOVER);
        assertThat(p.ttl()).isEqualTo(30);
        assertThat(p.order()).containsExactly(EU, CN, US);
    }

    @Test
    void noHealthyRegion_answersWithTheLastHealthyOne_andTheMinimumTtl() {
        AnswerPlan p = plan(health(false, false, false), CN, EU);
        assertThat(p).isEqualTo(new AnswerPlan(EU, AnswerPlan.Kind.NO_HEALTHY_REGION, 30, List.of(EU, CN, US)));
        assertThat(plan(health(false, false, false), CN, null).serving()).isEqualTo(CN);
    }

    @Test
    void theTtlFollowsTheServingRegionsScore() {
        HealthSnapshot h = HealthSnapshot.of(Map.of(CN, new RegionHealth(true, true, -1, 0.6, List.of()),
                                                    EU, RegionHealth.up(), US, RegionHealth.up()));
        assertThat(plan(h, CN, null).ttl()).isEqualTo(216); // 300 × (0.3 + 0.7 × 0.6)
    }

    @Test
    void aRecoveredHomeIsHeldDown_asTheGatewayHoldsItDown() {
        HealthSnapshot down = health(false, true, true);
        HealthSnapshot up = health(true, true, true).since(down, 1_000); // cn healthy since t = 1 s
        RoutingSnapshot held = state(up, Duration.ofSeconds(5));
        assertThat(AnswerPlan.of(held, CN, null, null, 3_000, 300, 30).serving()).isEqualTo(EU);
        assertThat(AnswerPlan.of(held, CN, null, null, 6_000, 300, 30).serving()).isEqualTo(CN);
    }

    @Test
    void srvPrioritiesAreTenTwentyThirty() {
        assertThat(List.of(AnswerPlan.priority(0), AnswerPlan.priority(1), AnswerPlan.priority(2)))
                .containsExactly(10, 20, 30);
    }

    @Property
    void theTtlIsBetweenTheMinimumAndTheBase_andAFailoverAlwaysGetsTheMinimum(
            @ForAll @DoubleRange(max = 1.0) double score, @ForAll boolean cnHealthy) {
        HealthSnapshot h = HealthSnapshot.of(Map.of(CN, new RegionHealth(cnHealthy, cnHealthy, -1, score, List.of()),
                                                    EU, RegionHealth.up(), US, RegionHealth.up()));
        AnswerPlan p = plan(h, CN, null);
        assertThat(p.ttl()).isBetween(30L, 300L);
        if (p.kind() != AnswerPlan.Kind.HOME) {
            assertThat(p.ttl()).isEqualTo(30);
        }
        assertThat(p.order()).first().isEqualTo(p.serving());
        assertThat(p.order()).doesNotHaveDuplicates().hasSize(3);
    }
}
