package io.unitas.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.unitas.core.routing.RoutingScenario;
import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.state.StateSource;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.fence.Writes;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;

/**
 * The gateway decides by the core's one routing decision: for random routing states and requests (reads and writes,
 * keyed or not, routed here or pre-routed by a trusted peer), the dispatcher's decision is the core's verdict, label
 * for label and problem for problem, three requests in a row so that throttles run dry alike.
 */
class DispatcherAgreementTest {

    @Provide
    Arbitrary<RoutingScenario> scenarios() {
        return RoutingScenario.all();
    }

    @Property(tries = 2_000)
    void theDispatchersDecision_isTheCoresVerdict(@ForAll("scenarios") RoutingScenario s,
                                                 @ForAll ReadOnlyPolicy onReadOnly) {
        GatewayConfig config = new GatewayConfig(Region.of("eu"), new InetSocketAddress("127.0.0.1", 8080), null, 0,
                GatewayConfig.TransportKind.AUTO, true, Map.of(),
                new StateSource.StaticFiles(null, null, null, null, Duration.ofSeconds(1)),
                GatewayConfig.Headers.DEFAULTS, 3, Writes.DEFAULT, GatewayConfig.Resilience.DEFAULTS, "off",
                new GatewayConfig.Routing(Duration.ZERO, onReadOnly, Map.of(), List.of()),
                GatewayConfig.Limits.DEFAULTS);
        Dispatcher dispatcher = new Dispatcher(config, Clock.fixed(Instant.ofEpochMilli(RoutingScenario.NOW),
                                                                   ZoneOffset.UTC));
        RoutingDecision core = RoutingDecision.of(Region.of("eu"), onReadOnly);
        RoutingState gatewayState = new RoutingState(1, s.snapshot());
        var coreState = s.snapshot();
        for (int i = 0; i < 3; i++) {
            DefaultHttpHeaders headers = new DefaultHttpHeaders();
            if (s.key() != null) {
                headers.set("x-user-id", s.key());
            }
            if (s.stamp() != null) {
                headers.set("x-unitas-region", s.stamp());
            }
            Decision d = dispatcher.decide(gatewayState, s.method(), "/cart", headers, s.view(), s.stamp() != null);
            Verdict v = core.decide(coreState, s.method(), "/cart", s.view(), s.stamp(), RoutingScenario.NOW);
            assertThat(List.of(String.valueOf(d.unit()), String.valueOf(d.home()), String.valueOf(d.target()),
                               String.valueOf(d.route())))
                    .as("labels")
                    .containsExactly(String.valueOf(v.unit()), String.valueOf(v.home()), String.valueOf(v.target()),
                                     String.valueOf(v.route()));
            Statistics.collect(v instanceof Verdict.Refuse r ? r.type().name() : v.route());
            if (v instanceof Verdict.Forward f) {
                assertThat(d.forwards()).as("%s", d.problem()).isTrue();
                assertThat(d.version()).isEqualTo(f.version());
            } else {
                assertThat(d.problem()).isEqualTo(((Verdict.Refuse) v).problem());
            }
        }
        // Agreement on every kind of verdict, not only on the common ones.
        Statistics.coverage(c -> {
            for (String kind : List.of("home", "failover", "spillover", "write_failover", "prerouted", "read-only",
                                       "no-healthy-region", "write-fenced", "missing-routing-key", "unroutable-key",
                                       "unknown-region")) {
                c.check(kind).count(n -> n > 0);
            }
        });
    }
}
