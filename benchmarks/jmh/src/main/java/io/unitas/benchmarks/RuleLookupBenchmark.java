package io.unitas.benchmarks;

import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.unitas.core.Topology;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.KeyTransform;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitLookup;
import io.unitas.core.rules.UnitRules;

/**
 * Unit rule lookup with 100,000 ranges (100 units over three regions, {@code mod 10000000}, ranges of 100 keys):
 * a numeric user id in a header, the same under {@code hash-mod}, and a request that falls to the last key source.
 * The requests are built in setup, so what is measured is the lookup: header reads, transform, binary search and
 * the one result object; {@code headerReadOnly} is the header read alone, a baseline to scale the others by.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar RuleLookupBenchmark -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RuleLookupBenchmark {

    @Param({"100000"})
    public int ranges;
    private static final int KEYS_PER_RANGE = 100;
    private static final int UNITS = 100;
    private static final int REQUESTS = 4096;

    private UnitRules modRules;
    private UnitRules hashRules;
    private RequestView[] numeric;
    private RequestView[] names;
    private RequestView[] queryOnly;
    private int next;

    @Setup
    public void setUp() {
        Topology topology = Topology.builder().region("cn").region("eu").region("us").center("cn").build();
        modRules = rules(KeyTransform.mod((long) ranges * KEYS_PER_RANGE)).build(topology);
        hashRules = rules(KeyTransform.hashMod((long) ranges * KEYS_PER_RANGE)).build(topology);
        Random random = new Random(42);
        numeric = new RequestView[REQUESTS];
        names = new RequestView[REQUESTS];
        queryOnly = new RequestView[REQUESTS];
        for (int i = 0; i < REQUESTS; i++) {
            String id = Long.toString(random.nextLong() & Long.MAX_VALUE);
            numeric[i] = RequestView.ofHeaders(Map.of("x-user-id", id, "accept", "*/*"));
            names[i] = RequestView.ofHeaders(Map.of("x-user-id", "user-" + id + "@example.com"));
            queryOnly[i] = RequestView.of(Map.of("accept", "*/*"), Map.of(), Map.of("user_id", id), "shop.example");
        }
    }

    private UnitRules.Builder rules(KeyTransform transform) {
        UnitRules.Builder b = UnitRules.builder()
                .source(KeySource.header("x-user-id")).source(KeySource.cookie("uid"))
                .source(KeySource.query("user_id")).transform(transform);
        String[] regions = {"cn", "eu", "us"};
        for (int u = 0; u < UNITS; u++) {
            b.unit("u" + u, regions[u % regions.length]);
        }
        for (int r = 0; r < ranges; r++) {
            long first = (long) r * KEYS_PER_RANGE;
            b.range(first, first + KEYS_PER_RANGE - 1, "u" + (r % UNITS));
        }
        return b;
    }

    private int nextIndex() {
        return next = (next + 1) & (REQUESTS - 1);
    }

    /** Baseline: only the header read that every lookup starts with, to scale the others on a busy machine. */
    @Benchmark
    public String headerReadOnly() {
        return numeric[nextIndex()].header("x-user-id");
    }

    /** A numeric user id in the first source, {@code mod 10000000}, 100,000 ranges. */
    @Benchmark
    public UnitLookup headerMod() {
        return modRules.lookup(numeric[nextIndex()]);
    }

    /** A string user id in the first source, {@code hash-mod 10000000} (FNV-1a over ~30 bytes). */
    @Benchmark
    public UnitLookup headerHashMod() {
        return hashRules.lookup(names[nextIndex()]);
    }

    /** The key is in the third source: two misses (header, cookie) before the query parameter. */
    @Benchmark
    public UnitLookup querySource() {
        return modRules.lookup(queryOnly[nextIndex()]);
    }
}
