package io.unitas.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.Topology;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.RoutingSnapshot;
import io.unitas.core.routing.Verdict;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitRules;

/**
 * The one routing decision every caller asks, for one request: key lookup, unit, route, spillover, fence. A read at
 * home, and a read of a down home's user spilled over by band (capacities and loads set). Target: no allocation per
 * decision (a forward is found again, not made), so the gateway's hot path allocates nothing here.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar RoutingDecisionBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RoutingDecisionBenchmark {

    private static final long NOW = 1_700_000_000_000L;

    private final RoutingDecision decision = RoutingDecision.of(Region.of("eu"), ReadOnlyPolicy.FENCE);
    private final RoutingSnapshot allUp = state(true);
    private final RoutingSnapshot cnDown = state(false);
    private final RequestView user = new RequestView() {
        @Override
        public String header(String name) {
            return "x-user-id".equals(name) ? "1042" : null;
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
    };

    private static RoutingSnapshot state(boolean cnUp) {
        Topology t = Topology.builder().region("cn", 100.0).region("eu", 60.0).region("us", 100.0).build();
        UnitRules rules = UnitRules.builder().unit("u-cn", "cn", 50.0).unit("u-eu", "eu", 40.0)
                                   .unit("u-us", "us", 40.0).source(KeySource.header("x-user-id"))
                                   .transform(KeyTransform.mod(10_000))
                                   .range(0, 3332, "u-cn").range(3333, 6665, "u-eu").range(6666, 9999, "u-us")
                                   .build(t);
        HealthSnapshot health = HealthSnapshot.ofFlags(Map.of(Region.of("cn"), cnUp, Region.of("eu"), true,
                                                              Region.of("us"), true));
        return RoutingSnapshot.of(t, rules, health, WriteFences.none(), System::nanoTime, NOW, Duration.ZERO);
    }

    /** A read of a cn user with every region up: home. */
    @Benchmark
    public Verdict home() {
        return decision.decide(allUp, "GET", "/cart", user, null, NOW);
    }

    /** The same user with cn down: a failover placed by the key's spillover band. */
    @Benchmark
    public Verdict spilled() {
        return decision.decide(cnDown, "GET", "/cart", user, null, NOW);
    }
}
