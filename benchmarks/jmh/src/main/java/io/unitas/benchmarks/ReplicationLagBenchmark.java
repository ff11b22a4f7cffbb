package io.unitas.benchmarks;

import io.unitas.playground.replication.Replicator;
import io.unitas.playground.store.Account;
import io.unitas.playground.store.RegionalStore;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The embedded replication's own lag: a registration written in cn until the background replicator has applied it
 * in eu, with no injected delay and a 1 ms poll interval. The distribution (p50, p99) is what a drill adds on top of
 * the delay it injects.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar ReplicationLagBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class ReplicationLagBenchmark {

    private RegionalStore cn;
    private Replicator replicator;
    private long written;

    /** Background replication between the two regions. */
    @Setup
    public void start(TwoRegions regions) {
        cn = regions.cn;
        replicator = Replicator.builder().stores(regions.cn, regions.eu).pollInterval(Duration.ofMillis(1)).build();
        replicator.start();
    }

    /** Stops replication. */
    @TearDown
    public void stop() {
        replicator.close();
    }

    /** One registration in cn, until eu has applied it. */
    @Benchmark
    public long registerInCnUntilAppliedInEu() {
        cn.putAccount(new Account("user-" + written, "u-cn", TwoRegions.CN, "User", Clock.systemUTC().instant()));
        long seq = ++written;
        while (replicator.link(TwoRegions.CN, TwoRegions.EU).appliedSeq() < seq) {
            Thread.onSpinWait();
        }
        return seq;
    }
}
