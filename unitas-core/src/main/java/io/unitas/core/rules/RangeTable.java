package io.unitas.core.rules;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Validated ranges as sorted arrays for an allocation-free search. Validation guarantees the ranges are contiguous
 * (no overlap, no gap), so a range is known by its first key alone: key {@code k} belongs to the last range whose
 * first key is {@code <= k}, if {@code k} is not past the end. A small index of every {@value #BLOCK}th first key
 * (12 KB for 100,000 ranges, so it stays in cache) narrows the search to one block before the big array is touched.
 */
final class RangeTable {

    private static final int BLOCK = 64;

    private final long[] firsts;
    private final Unit[] units;
    private final long[] index;
    private final long end;

    RangeTable(List<UnitRange> ranges, Map<String, Unit> unitsById) {
        UnitRange[] sorted = ranges.toArray(new UnitRange[0]);
        Arrays.sort(sorted, Comparator.comparingLong(r -> r.range().first()));
        firsts = new long[sorted.length];
        units = new Unit[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            firsts[i] = sorted[i].range().first();
            units[i] = unitsById.get(sorted[i].unit());
        }
        index = new long[(sorted.length + BLOCK - 1) / BLOCK];
        for (int b = 0; b < index.length; b++) {
            index[b] = firsts[b * BLOCK];
        }
        end = sorted.length == 0 ? -1 : sorted[sorted.length - 1].range().last();
    }

    /** The unit whose range holds {@code key}, or {@code null}. */
    Unit find(long key) {
        if (firsts.length == 0 || key < firsts[0] || key > end) {
            return null;
        }
        int from = lastAtMost(index, 0, index.length, key) * BLOCK;
        return units[lastAtMost(firsts, from, Math.min(from + BLOCK, firsts.length), key)];
    }

    /**
     * The last position in {@code a[from, to)} holding a value {@code <= key}, where {@code a[from] <= key}. Written
     * without a data-dependent branch (the JIT turns the ternary into a conditional move): on random keys a branchy
     * binary search mispredicts about every other step, which costs more than the memory reads.
     */
    private static int lastAtMost(long[] a, int from, int to, long key) {
        int base = from;
        int n = to - from;
        while (n > 1) {
            int half = n >>> 1;
            base = a[base + half] <= key ? base + half : base;
            n -= half;
        }
        return base;
    }
}
