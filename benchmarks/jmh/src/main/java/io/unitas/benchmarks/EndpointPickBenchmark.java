package io.unitas.benchmarks;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
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

import io.unitas.core.endpoint.EndpointPicker;
import io.unitas.core.endpoint.EndpointPicker.Candidate;
import io.unitas.core.endpoint.EndpointState;

/**
 * The resolver SDK's pick: RFC 2782 selection by weight over the healthiest endpoints of the lowest priority, and
 * the CRC32 pick of a user's endpoint by key. Target: at most 50 ns and no allocation per pick.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar EndpointPickBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EndpointPickBenchmark {

    /** Two gateways in the home region (priority 10, one degraded), one evicted, two in the next region (20). */
    private final EndpointPicker picker = EndpointPicker.of(List.of(
            new Candidate(10, 60L * 109, EndpointState.HEALTHY),
            new Candidate(10, 40L * 61, EndpointState.DEGRADED),
            new Candidate(10, 50L * 39, EndpointState.EVICTED),
            new Candidate(20, 50L * 20, EndpointState.HEALTHY),
            new Candidate(20, 50L * 18, EndpointState.HEALTHY)));
    private final String user = "user-4711";

    /** A pick by weight with the thread's own random generator. */
    @Benchmark
    public int weighted() {
        return picker.pick(ThreadLocalRandom.current());
    }

    /** The endpoint a user sticks to: CRC32 of the key's UTF-8 bytes, computed without encoding it. */
    @Benchmark
    public int byKey() {
        return picker.pick(user);
    }
}
