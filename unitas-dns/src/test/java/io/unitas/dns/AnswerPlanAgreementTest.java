package io.unitas.dns;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

import io.unitas.core.routing.RoutingScenario;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.RoutingSnapshot;

/**
 * DNS answers by the core's one routing decision: for random routing states (capacities and loads or none, regions
 * down or read-only) and random client subnets of every region, the region an answer serves is the one the
 * decision's region-level part picks with the client's region as home and its subnet as the key, spillover included.
 */
class AnswerPlanAgreementTest {

    @Provide
    Arbitrary<RoutingScenario> scenarios() {
        return RoutingScenario.all();
    }

    @Property(tries = 1_000)
    void theServingRegion_isTheDecisionsRegion(@ForAll("scenarios") RoutingScenario scenario,
                                               @ForAll @IntRange(min = 0, max = 255) int b2,
                                               @ForAll @IntRange(min = 0, max = 255) int b3,
                                               @ForAll @IntRange(min = 8, max = 32) int prefix) {
        RoutingSnapshot s = scenario.snapshot();
        String key = AnswerPlan.clientKey(new byte[] {10, (byte) b2, (byte) b3, 7}, prefix);
        for (Region client : s.topology().regions()) {
            AnswerPlan plan = AnswerPlan.of(s, client, key, null, RoutingScenario.NOW, 300, 30);
            RouteDecision d = RoutingDecision.region(s, client.id(), key, false, ReadOnlyPolicy.FENCE,
                                                     RoutingScenario.NOW);
            Statistics.collect(plan.kind().name());
            assertThat(plan.serving()).as(d.message()).isEqualTo(d.hasTarget() ? d.target() : client);
            assertThat(plan.kind().name()).isEqualTo(switch (d.outcome()) {
                case HOME, FAILOVER, SPILLOVER, OVERFLOW -> d.outcome().name();
                default -> "NO_HEALTHY_REGION";
            });
        }
        Statistics.coverage(c -> {
            for (String kind : new String[] {"HOME", "FAILOVER", "SPILLOVER", "OVERFLOW", "NO_HEALTHY_REGION"}) {
                c.check(kind).count(n -> n > 0);
            }
        });
    }
}
