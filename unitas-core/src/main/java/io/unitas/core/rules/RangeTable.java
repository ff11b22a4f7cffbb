package io.unitas.core.rules;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Ranges sorted into parallel arrays for an allocation-free binary search. Built from ranges already validated
 * not to overlap.
 */
final class RangeTable {

    private final long[] firsts;
    private final long[] lasts;
    private final Unit[] units;

    RangeTable(List<UnitRange> ranges, Map<String, Unit> unitsById) {
        UnitRange[] sorted = ranges.toArray(new UnitRange[0]);
        Arrays.sort(sorted, Comparator.comparingLong(r -> r.range().first()));
        firsts = new long[sorted.length];
        lasts = new long[sorted.length];
        units = new Unit[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            firsts[i] = sorted[i].range().first();
            lasts[i] = sorted[i].range().last();
            units[i] = unitsById.get(sorted[i].unit());
        }
    }

    /** The unit whose range holds {@code key}, or {@code null}. */
    Unit find(long key) {
        int lo = 0;
        int hi = firsts.length - 1;
        // Find the last range whose first key is <= key; it is the only one that can hold it.
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (firsts[mid] <= key) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return hi >= 0 && key <= lasts[hi] ? units[hi] : null;
    }
}
