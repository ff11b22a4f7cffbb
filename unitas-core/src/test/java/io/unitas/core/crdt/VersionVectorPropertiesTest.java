package io.unitas.core.crdt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link VersionVector}'s array walk against the definition of causal order over plain maps. */
class VersionVectorPropertiesTest {

    @Provide
    Arbitrary<Map<String, Long>> vectors() {
        return Arbitraries.maps(Arbitraries.of("cn", "eu", "us", "ap", "sa"), Arbitraries.longs().between(0, 3))
                          .ofMaxSize(5);
    }

    /** compare and merge against their definition over maps, entry by entry. */
    @Property
    void compareAndMerge_agreeWithTheEntryWiseDefinition(@ForAll("vectors") Map<String, Long> left,
                                                        @ForAll("vectors") Map<String, Long> right) {
        Set<String> all = new TreeSet<>(left.keySet());
        all.addAll(right.keySet());
        boolean less = false;
        boolean greater = false;
        Map<String, Long> max = new HashMap<>();
        for (String r : all) {
            long a = left.getOrDefault(r, 0L);
            long b = right.getOrDefault(r, 0L);
            less |= a < b;
            greater |= a > b;
            max.put(r, Math.max(a, b));
        }
        Causality expected = less && greater ? Causality.CONCURRENT
                : less ? Causality.BEFORE : greater ? Causality.AFTER : Causality.EQUAL;
        VersionVector a = VersionVector.of(left);
        VersionVector b = VersionVector.of(right);

        assertThat(a.compare(b)).isEqualTo(expected);
        assertThat(a.merge(b)).isEqualTo(VersionVector.of(max)).isEqualTo(b.merge(a));
        assertThat(a.merge(b).dominates(a)).isTrue();
        assertThat(a.merge(b).dominates(b)).isTrue();
    }
}
