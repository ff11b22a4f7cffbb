package io.unitas.core.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** {@link RangeDiff}: the ranges it names are exactly those whose rows differ between the two copies. */
class RangeDiffTest {

    private static final int RANGES = 16;

    @Property(tries = 500)
    void differing_namesExactlyTheRangesWhoseRowsDiffer(
            @ForAll @Size(max = 60) Map<@IntRange(max = 200) Integer, @IntRange(max = 5) Integer> home,
            @ForAll @Size(max = 20) Map<@IntRange(max = 200) Integer, @IntRange(max = 5) Integer> edits,
            @ForAll @Size(max = 10) Set<@IntRange(max = 200) Integer> deletes) {
        // here = home, then some rows altered or added (edits) and some deleted
        Map<Integer, Integer> here = new HashMap<>(home);
        here.putAll(edits);
        deletes.forEach(here::remove);

        Set<Integer> expected = new TreeSet<>();
        for (int key = 0; key <= 200; key++) {
            if (!java.util.Objects.equals(home.get(key), here.get(key))) {
                expected.add(range(key));
            }
        }
        assertThat(RangeDiff.differing(digests(home), digests(here))).isEqualTo(expected);
        assertThat(RangeDiff.differing(digests(here), digests(home))).isEqualTo(expected);
    }

    @Example
    void aRangeMissingOnOneSide_isEmptyThere() {
        Map<Integer, RangeDigest> home = Map.of(3, RangeDigest.EMPTY.plus(42));

        assertThat(RangeDiff.differing(home, Map.of())).containsExactly(3);
        assertThat(RangeDiff.differing(Map.of(3, RangeDigest.EMPTY), Map.of())).isEmpty();
    }

    @Example
    void theDigestOfRows_doesNotDependOnTheirOrder() {
        assertThat(RangeDigest.EMPTY.plus(1).plus(Long.MAX_VALUE).plus(-7))
                .isEqualTo(RangeDigest.EMPTY.plus(-7).plus(1).plus(Long.MAX_VALUE));
    }

    @Example
    void badDigests_areRefusedWithWhatWasExpected() {
        assertThatThrownBy(() -> new RangeDigest(-1, 0)).hasMessage("rows: -1 (expected: >= 0)");
        assertThatThrownBy(() -> new RangeDigest(0, 5)).hasMessage("hash: 5 of an empty range (expected: 0)");
    }

    private static int range(int key) {
        return Math.floorMod(Integer.hashCode(key * 31 + 7), RANGES);
    }

    // A row's hash spreads key and value over 64 bits, as the database's md5 does.
    private static long rowHash(int key, int value) {
        long h = key * 0x9E3779B97F4A7C15L + value * 0xC2B2AE3D27D4EB4FL;
        h ^= h >>> 31;
        return h * 0xBF58476D1CE4E5B9L;
    }

    private static Map<Integer, RangeDigest> digests(Map<Integer, Integer> rows) {
        Map<Integer, RangeDigest> digests = new HashMap<>();
        rows.forEach((key, value) -> digests.merge(range(key), RangeDigest.EMPTY.plus(rowHash(key, value)),
                                                   (a, b) -> new RangeDigest(a.rows() + b.rows(),
                                                                             a.hash() + b.hash())));
        return digests;
    }
}
