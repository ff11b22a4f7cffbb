package io.unitas.benchmarks;

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
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.Topology;

/**
 * One route decision over three regions: the home healthy, one failover hop, and the worst case where the last
 * region of the fallback list is the only healthy one. Target: at most 20 ns and no allocation per decision.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar RouterBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouterBenchmark {

    private final Router router = Router.of(Topology.of("cn", "eu", "us"));
    private final HealthSnapshot allUp = HealthSnapshot.ofFlags(
            Map.of(Region.of("cn"), true, Region.of("eu"), true, Region.of("us"), true));
    private final HealthSnapshot cnDown = HealthSnapshot.ofFlags(
            Map.of(Region.of("cn"), false, Region.of("eu"), true, Region.of("us"), true));
    private final HealthSnapshot onlyUsUp = HealthSnapshot.ofFlags(
            Map.of(Region.of("cn"), false, Region.of("eu"), false, Region.of("us"), true));
    private final String home = "cn";

    /**
     * Nothing but JMH's own cost of returning a field: on a machine shared with other work, the distance of this
     * from its idle value (well under 1 ns) shows how much the other numbers are inflated.
     */
    @Benchmark
    public HealthSnapshot baseline() {
        return allUp;
    }

    /** The common case: the home region serves. */
    @Benchmark
    public RouteDecision home() {
        return router.route(home, allUp);
    }

    /** The home is down; the first region of its fallback list serves. */
    @Benchmark
    public RouteDecision failover() {
        return router.route(home, cnDown);
    }

    /** Only the last region of the fallback list is healthy: the longest walk. */
    @Benchmark
    public RouteDecision lastResort() {
        return router.route(home, onlyUsUp);
    }
}
