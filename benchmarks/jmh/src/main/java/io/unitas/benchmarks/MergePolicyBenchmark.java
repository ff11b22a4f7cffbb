package io.unitas.benchmarks;

import io.unitas.core.crdt.Causality;
import io.unitas.core.crdt.LwwRegister;
import io.unitas.core.crdt.MergePolicy;
import io.unitas.core.crdt.OrMap;
import io.unitas.core.crdt.PnCounter;
import io.unitas.core.crdt.VersionVector;
import java.util.Map;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The decisions an applier makes for every change that arrives for an entity it holds, over three regions whose
 * replica ids look like the stores' ({@code cn.3edcc45a}): compare two version vectors, merge two LWW registers,
 * merge two PN-counters, and merge two OR-maps (20 keys, 5 written on each side). The compare, the LWW decision and
 * the merges of a state with an older one must not allocate ({@code -prof gc}: {@code gc.alloc.rate.norm} ≈ 0
 * B/op); a merge of two concurrent states builds the joined state and does.
 *
 * <p>Run: {@code mvn -B -ntp -q -pl benchmarks/jmh -am package -DskipTests &&
 * java -jar benchmarks/jmh/target/benchmarks.jar MergePolicyBenchmark -prof gc -f 1 -wi 3 -w 2 -i 5 -r 2}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MergePolicyBenchmark {

    private static final String CN = "cn.3edcc45a";
    private static final String EU = "eu.71b0c2d9";
    private static final String US = "us.0e5f8a13";

    private VersionVector cnVector;
    private VersionVector euVector;
    private VersionVector laterVector;
    private LwwRegister<String> base;
    private LwwRegister<String> cnWrite;
    private LwwRegister<String> euWrite;
    private PnCounter counter;
    private PnCounter laterCounter;
    private PnCounter concurrentCounter;
    private OrMap<String, Integer> cnMap;
    private OrMap<String, Integer> euMap;
    private final MergePolicy<LwwRegister<String>> lww = MergePolicy.lastWriterWins();
    private final MergePolicy<PnCounter> counters = MergePolicy.counter();
    private final MergePolicy<OrMap<String, Integer>> maps = MergePolicy.orMap();

    /** Two concurrent histories over one shared past, and one that has seen the other. */
    @Setup
    public void diverge() {
        VersionVector shared = VersionVector.of(Map.of(CN, 40L, EU, 35L, US, 12L));
        cnVector = shared.increment(CN);
        euVector = shared.increment(EU);
        laterVector = cnVector.merge(euVector).increment(US);

        base = LwwRegister.of("name: Alice", shared, 1_700_000_000_000L, US);
        cnWrite = base.write(CN, "name: Alice Chen", 1_700_000_000_500L);
        euWrite = base.write(EU, "name: Alice C.", 1_700_000_000_400L);

        counter = PnCounter.zero().add(CN, 40).add(EU, 35).add(US, -12);
        laterCounter = counter.add(EU, 3);
        concurrentCounter = counter.add(US, 2);

        OrMap<String, Integer> sharedMap = OrMap.empty(Math::max);
        for (int i = 0; i < 20; i++) {
            sharedMap = sharedMap.put(CN, "item-" + i, 1);
        }
        cnMap = sharedMap;
        euMap = sharedMap;
        for (int i = 0; i < 5; i++) {
            cnMap = cnMap.put(CN, "item-" + i, 2);
            euMap = euMap.put(EU, "item-" + (i + 3), 3);
        }
    }

    /** Two vectors that each saw a write the other did not. */
    @Benchmark
    public Causality compareConcurrent() {
        return cnVector.compare(euVector);
    }

    /** A vector against one that has seen it (the usual in-order arrival). */
    @Benchmark
    public Causality compareDominated() {
        return cnVector.compare(laterVector);
    }

    /** Merging a vector into one that has seen it returns that one. */
    @Benchmark
    public VersionVector vectorMergeDominated() {
        return laterVector.merge(cnVector);
    }

    /** Which of two concurrent writes of one register wins: vectors, then timestamp, then region. */
    @Benchmark
    public boolean lwwDecideConcurrent() {
        return euWrite.winsOver(cnWrite);
    }

    /** A register merged with an older state of itself (in-order arrival): the newer is returned. */
    @Benchmark
    public LwwRegister<String> lwwMergeDominated() {
        return lww.merge(cnWrite, base);
    }

    /** Two concurrent writes merged: the winner's value with both vectors joined, a new state. */
    @Benchmark
    public LwwRegister<String> lwwMergeConcurrent() {
        return lww.merge(euWrite, cnWrite);
    }

    /** A counter merged with an older state of itself: the newer is returned. */
    @Benchmark
    public PnCounter counterMergeDominated() {
        return counters.merge(laterCounter, counter);
    }

    /** Two counters each with a step the other lacks: a new joined state. */
    @Benchmark
    public PnCounter counterMergeConcurrent() {
        return counters.merge(laterCounter, concurrentCounter);
    }

    /** Two 20-key OR-maps, 5 keys written on each side (2 of them on both). */
    @Benchmark
    public OrMap<String, Integer> orMapMergeConcurrent() {
        return maps.merge(cnMap, euMap);
    }
}
