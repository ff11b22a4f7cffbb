package io.unitas.core.health;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.unitas.core.Region;

/**
 * Lag per unit and per link from every region's own {@link UnitPositions}: for each origin and each other region
 * that both read their positions, and each unit the origin writes, the target applies from it, or the origin is home
 * of, what the origin has written minus what the target has applied. Pure: the readings carry their own times.
 *
 * <p>For one unit, with the target's applied position {@code a} and the origin's kept changes (count {@code n},
 * oldest {@code o} written at {@code wo}, newest {@code h}): {@code a >= h} is caught up (0 changes, 0 ms); {@code a <
 * o} lacks all {@code n}, the oldest written at {@code wo}; in between, the target has applied part of what another
 * region still lacks, and the figures are bounds: at most {@code n - 1} changes, at most as old as {@code wo}. The lag
 * in time is taken at the older of the two readings, so that it never counts a change the target had applied
 * before it was read, and is at least 1 ms while a change is lacking, whatever the two clocks' skew or the order of
 * the readings (0 means caught up).
 */
public final class UnitLinks {

    private UnitLinks() {}

    /**
     * Every link's lag between regions whose positions are {@link UnitPositions#known() known}, origins in the
     * order of {@code positions}, units in the order first seen.
     *
     * @param positions each region's last positions
     * @param homes     each unit's home: a unit is measured from its home even when nothing of it is written yet
     */
    public static List<UnitLink> of(Map<Region, UnitPositions> positions, Map<String, Region> homes) {
        List<UnitLink> links = new ArrayList<>();
        positions.forEach((origin, written) -> {
            if (!written.known()) {
                return;
            }
            Set<String> units = new LinkedHashSet<>(written.written().keySet());
            positions.forEach((target, applied) -> {
                if (!target.equals(origin) && applied.known()) {
                    units.addAll(applied.applied().getOrDefault(origin, Map.of()).keySet());
                }
            });
            homes.forEach((unit, home) -> {
                if (home.equals(origin)) {
                    units.add(unit);
                }
            });
            positions.forEach((target, applied) -> {
                if (target.equals(origin) || !applied.known()) {
                    return;
                }
                for (String unit : units) {
                    links.add(link(unit, origin, written, target, applied));
                }
            });
        });
        return List.copyOf(links);
    }

    /** The lag of {@code unit} from {@code origin} in {@code target}. */
    static UnitLink link(String unit, Region origin, UnitPositions written, Region target, UnitPositions applied) {
        Instant at = written.readAt().isBefore(applied.readAt()) ? written.readAt() : applied.readAt();
        UnitPositions.Written kept = written.written().get(unit);
        long a = applied.appliedFrom(origin, unit);
        if (kept == null || a >= kept.head()) {
            return new UnitLink(unit, origin, target, 0, 0, true, at);
        }
        // at least 1 ms: a target lacking a change is behind, even one read before it was written (0 is caught up)
        long ageMs = Math.max(1, at.toEpochMilli() - kept.oldestWrittenAt().toEpochMilli());
        if (a < kept.oldest()) {
            return new UnitLink(unit, origin, target, kept.pending(), ageMs, true, at);
        }
        return new UnitLink(unit, origin, target, Math.max(1, kept.pending() - 1), ageMs, false, at);
    }

    /** The lags of {@code links} from {@code origin}, as its per-unit lag to each other region. */
    public static List<UnitLag> lagsFrom(Region origin, List<UnitLink> links) {
        return links.stream().filter(l -> l.from().equals(origin)).map(UnitLink::toUnitLag).toList();
    }
}
