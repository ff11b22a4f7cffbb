package io.unitas.data.outbox;

import io.unitas.core.Region;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How far behind each unit written in one region is in every other region: the age of the oldest change of that unit
 * not yet applied there, 0 when caught up. What a switchover of units waits on before it flips them.
 *
 * @param origin    the region whose changes this measures
 * @param at        when it was measured, by the origin's clock
 * @param lagMillis per unit, per target region, the lag in milliseconds
 * @param stopped   the origin's unit streams stopped in some target (their lag keeps growing)
 */
public record UnitLagReport(Region origin, Instant at, Map<String, Map<Region, Long>> lagMillis,
                           List<StoppedStream> stopped) {

    /** Copies the maps, keeping their order. */
    public UnitLagReport {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(at, "at");
        Map<String, Map<Region, Long>> copy = new LinkedHashMap<>();
        lagMillis.forEach((unit, byTarget) -> copy.put(unit, Collections.unmodifiableMap(new LinkedHashMap<>(byTarget))));
        lagMillis = Collections.unmodifiableMap(copy);
        stopped = List.copyOf(stopped);
    }

    /** A report of nothing written yet. */
    public static UnitLagReport empty(Region origin, Instant at) {
        return new UnitLagReport(origin, at, Map.of(), List.of());
    }

    /** The lag of {@code unit} in {@code target}, in milliseconds; 0 for a unit with nothing written here. */
    public long lagMillis(String unit, Region target) {
        return lagMillis.getOrDefault(unit, Map.of()).getOrDefault(target, 0L);
    }

    /** The largest lag of {@code units} in {@code target}, in milliseconds (0 when all are caught up). */
    public long maxLagMillis(Collection<String> units, Region target) {
        return units.stream().mapToLong(u -> lagMillis(u, target)).max().orElse(0);
    }

    /** Whether every one of {@code units} has everything written here applied in {@code target}. */
    public boolean caughtUp(Collection<String> units, Region target) {
        return maxLagMillis(units, target) == 0;
    }
}
