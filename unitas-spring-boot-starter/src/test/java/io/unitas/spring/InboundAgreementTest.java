package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import io.unitas.core.routing.RoutingScenario;
import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.core.ProblemType;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;

/**
 * The inbound filter decides by the core's one routing decision: for random routing states and requests reaching a
 * service directly, its {@code unitas.route} tag is the verdict's reason where the verdict picks the service's region
 * ({@code off_route} where it picks another region, {@code none} without a unit), spillover and writes included, and
 * it refuses a write with {@code write-fenced} exactly where the verdict does, three requests in a row so that
 * throttles run dry alike.
 */
class InboundAgreementTest {

    @Provide
    Arbitrary<RoutingScenario> scenarios() {
        return RoutingScenario.all();
    }

    @Provide
    Arbitrary<String> regions() {
        return Arbitraries.of("cn", "eu", "us");
    }

    @Property(tries = 4_000) // a spillover served here is rare (the target must be this service's region): enough tries
    void theInboundRouteAndFence_areTheCoresVerdict(@ForAll("scenarios") RoutingScenario s,
                                                    @ForAll("regions") String here) {
        RoutingSnapshot service = RoutingSnapshot.of(s.rules(), s.health(), s.fences(), Duration.ZERO, () -> 0L);
        InboundContext inbound = new InboundContext(RoutingHeaders.DEFAULTS, () -> service, true, here,
                                                    Clock.fixed(Instant.ofEpochMilli(RoutingScenario.NOW),
                                                                ZoneOffset.UTC));
        RoutingDecision core = RoutingDecision.of(Region.of(here), ReadOnlyPolicy.FENCE);
        var coreState = s.snapshot();
        for (int i = 0; i < 3; i++) {
            InboundContext.Accepted accepted = inbound.accept(s.view(), service, s.method(), "/cart");
            Verdict v = core.decide(coreState, s.method(), "/cart", s.view(), null, RoutingScenario.NOW);
            String expected = v.unit() == null ? InboundContext.NONE
                              : v.target() != null && v.route() != null && v.target().id().equals(here) ? v.route()
                              : InboundContext.OFF_ROUTE;
            if (v instanceof Verdict.Refuse r && r.type() == ProblemType.AMBIGUOUS_ROUTING_KEY) {
                assertThat(accepted.refusal()).isEqualTo(r.problem());
                continue;
            }
            assertThat(accepted.route()).isEqualTo(expected);
            Statistics.collect(accepted.refusal() != null ? accepted.refusal().type() : expected);
            if (v instanceof Verdict.Refuse r && r.type() == ProblemType.WRITE_FENCED) {
                assertThat(accepted.refusal()).isEqualTo(r.problem());
            } else if (v instanceof Verdict.Forward) {
                assertThat(accepted.refusal()).isNull();
            }
        }
        Statistics.coverage(c -> {
            for (String kind : new String[] {"home", "failover", "spillover", "off_route", "none", "write-fenced"}) {
                c.check(kind).count(n -> n > 0);
            }
        });
    }
}
