package io.unitas.benchmarks;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import io.unitas.client.InstanceSelection;
import io.unitas.client.InstanceSelector;
import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.ServiceKind;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;

/**
 * The unit-aware service's own work for one inbound request that makes one outbound call, as the Spring Boot
 * starter's filter, HTTP client interceptor and LoadBalancer supplier do it: the context in (the gateway's stamp read,
 * the routing key looked up in the unit rules, the fence checked, the route judged for the metric tag, the context
 * made current), the propagation out (five headers written) and the instance selection (six registered instances,
 * two per region, narrowed to the unit's region). Spring's own dispatch and the HTTP client's header map are not
 * in it: they are there with or without the starter. Goal: at most 5 µs and 1 KB allocated per call.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar StarterCallBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StarterCallBenchmark {

    /** A registered instance as a registry client gives it: its metadata. */
    public record Instance(String id, Map<String, String> metadata) {}

    /**
     * A request as a Servlet container hands it over: its headers already parsed (the container's lookup, not the
     * starter's, so a plain map).
     */
    record Request(Map<String, String> headers) implements RequestView {
        @Override
        public String header(String name) {
            return headers.get(name);
        }

        @Override
        public String cookie(String name) {
            return null;
        }

        @Override
        public String query(String name) {
            return null;
        }

        @Override
        public String host() {
            return null;
        }
    }

    private final RoutingHeaders headers = RoutingHeaders.DEFAULTS;
    private RoutingSnapshot snapshot;
    private InstanceSelector selector;
    private List<Instance> instances;
    private RequestView stamped;
    private Clock clock;
    private final RoutingDecision decision = RoutingDecision.of(Region.of("eu"), ReadOnlyPolicy.FENCE);

    @Setup
    public void setUp() {
        Topology topology = Topology.of("cn", "eu", "us");
        UnitRules rules = UnitRules.builder().unit("u-cn", "cn").unit("u-eu", "eu").unit("u-us", "us")
                                   .source(KeySource.header("x-user-id")).transform(KeyTransform.mod(100))
                                   .range(0, 32, "u-cn").range(33, 65, "u-eu").range(66, 99, "u-us")
                                   .build(topology);
        HealthSnapshot health = HealthSnapshot.ofFlags(
                Map.of(Region.of("cn"), true, Region.of("eu"), true, Region.of("us"), true));
        snapshot = RoutingSnapshot.of(rules, health, WriteFences.none());
        clock = Clock.systemUTC();
        selector = InstanceSelector.of("eu", () -> snapshot, clock);
        instances = List.of(new Instance("cn-1", Map.of(InstanceSelector.REGION, "cn")),
                            new Instance("cn-2", Map.of(InstanceSelector.REGION, "cn")),
                            new Instance("eu-1", Map.of(InstanceSelector.REGION, "eu")),
                            new Instance("eu-2", Map.of(InstanceSelector.REGION, "eu")),
                            new Instance("us-1", Map.of(InstanceSelector.REGION, "us")),
                            new Instance("us-2", Map.of(InstanceSelector.REGION, "us")));
        stamped = new Request(Map.of("x-user-id", "40", "x-unitas-unit", "u-eu", "x-unitas-region", "eu",
                                     "x-unitas-origin", "cn", "x-unitas-hops", "1"));
    }

    /** Nothing but JMH's own cost: how much the machine inflates the numbers beside it. */
    @Benchmark
    public RoutingSnapshot baseline() {
        return snapshot;
    }

    /** Context in, one call's propagation out and instance selection, context closed. */
    @Benchmark
    public void call(Blackhole bh) {
        RoutingSnapshot s = snapshot;
        RoutingContext context = headers.read(stamped::header);
        UnitLookup lookup = s.rules().lookup(stamped);
        if (lookup.outcome() == UnitLookup.Outcome.UNIT) {
            context = context.withUnit(lookup.unit().id());
        }
        // The starter's one decision per request: its route tag and its fence's answer.
        Verdict verdict = decision.decide(s.state(), "POST", "/orders", stamped, null, context.unit(),
                                          clock.millis());
        bh.consume(verdict.route());
        try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
            BiConsumer<String, String> sink = (name, value) -> bh.consume(value);
            headers.write(RoutingContextHolder.current(), sink);
            InstanceSelection<Instance> picked = selector.select(instances, Instance::metadata,
                                                                 RoutingContextHolder.current(), ServiceKind.CORE,
                                                                 false);
            bh.consume(picked);
        }
    }
}
