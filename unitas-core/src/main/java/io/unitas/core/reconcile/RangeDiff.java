package io.unitas.core.reconcile;

import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Which key ranges of a region's copy differ from the home's: compared range by range, a range absent on one side
 * counting as {@link RangeDigest#EMPTY}. Pure; the ranges are numbered by the caller (hash buckets of the key).
 */
public final class RangeDiff {

    private RangeDiff() {}

    /** The ranges whose digests differ between {@code home} and {@code here}, in ascending order. */
    public static SortedSet<Integer> differing(Map<Integer, RangeDigest> home, Map<Integer, RangeDigest> here) {
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(here, "here");
        TreeSet<Integer> differ = new TreeSet<>();
        home.forEach((range, digest) -> {
            if (!digest.equals(here.getOrDefault(range, RangeDigest.EMPTY))) {
                differ.add(range);
            }
        });
        here.forEach((range, digest) -> {
            if (!digest.equals(home.getOrDefault(range, RangeDigest.EMPTY))) {
                differ.add(range);
            }
        });
        return differ;
    }
}
