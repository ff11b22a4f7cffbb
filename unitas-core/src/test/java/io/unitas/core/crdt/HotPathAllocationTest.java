package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The decisions an applier makes per arriving change allocate nothing: comparing version vectors, merging a
 * vector, a counter or an LWW register into one that has seen it, and deciding which of two concurrent LWW writes
 * wins. Counted with the JVM's per-thread
 * allocation counter over many calls, so one stray object per call would show as megabytes.
 * ({@code MergePolicyBenchmark} measures the same with JMH's {@code -prof gc}.)
 */
class HotPathAllocationTest {

    private static final int CALLS = 200_000;
    private static final String CN = "cn.3edcc45a";
    private static final String EU = "eu.71b0c2d9";
    private static final String US = "us.0e5f8a13";

    private final VersionVector shared = VersionVector.of(Map.of(CN, 40L, EU, 35L, US, 12L));
    private final VersionVector cn = shared.increment(CN);
    private final VersionVector eu = shared.increment(EU);
    private final VersionVector later = cn.merge(eu).increment(US);
    private final LwwRegister<String> base = LwwRegister.of("a", shared, 1_000, US);
    private final LwwRegister<String> cnWrite = base.write(CN, "b", 1_500);
    private final LwwRegister<String> euWrite = base.write(EU, "c", 1_400);
    private final PnCounter counter = PnCounter.zero().add(CN, 40).add(EU, 35).add(US, -12);
    private final PnCounter laterCounter = counter.add(EU, 3);

    @Test
    void versionVectorCompare_allocatesNothing() {
        assertThat(bytesAllocatedBy(() -> cn.compare(eu).ordinal() + cn.compare(later).ordinal())).isLessThan(1024);
    }

    @Test
    void versionVectorMergeIntoOneThatHasSeenIt_allocatesNothing() {
        assertThat(bytesAllocatedBy(() -> later.merge(cn) == later ? 1 : 0)).isLessThan(1024);
    }

    @Test
    void lwwDecisionAndMergeWithAnOlderState_allocateNothing() {
        assertThat(bytesAllocatedBy(() -> (euWrite.winsOver(cnWrite) ? 1 : 0) + cnWrite.merge(base).timestamp()))
                .isLessThan(1024);
    }

    @Test
    void counterMergeWithAnOlderState_allocatesNothing() {
        assertThat(bytesAllocatedBy(() -> counter.merge(laterCounter) == laterCounter ? 1 : 0)).isLessThan(1024);
    }

    /** Bytes this thread allocated over {@link #CALLS} calls, after as many calls to warm up. */
    private static long bytesAllocatedBy(LongSupplier call) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported()).as("per-thread allocation counting").isTrue();
        long sink = 0;
        for (int i = 0; i < CALLS; i++) {
            sink += call.getAsLong();
        }
        long thread = Thread.currentThread().getId();
        long before = threads.getThreadAllocatedBytes(thread);
        for (int i = 0; i < CALLS; i++) {
            sink += call.getAsLong();
        }
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        assertThat(sink).isNotEqualTo(Long.MIN_VALUE); // keeps the calls' results in use
        return allocated;
    }
}
