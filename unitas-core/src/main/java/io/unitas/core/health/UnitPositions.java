package io.unitas.core.health;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.unitas.core.Region;

/**
 * What one region's own database says about replication, per unit: what the region has written and not yet trimmed
 * (its outbox) and how far it has applied each other region's changes. Neither side alone is a lag; the control plane
 * puts the writer's report beside each reader's to get the lag of every link ({@link UnitLinks}).
 *
 * @param known   whether the region reads its positions at all; {@link #NONE} does not, and then every link from or to
 *                the region is unknown
 * @param readAt  when the positions were read, by the reporting region's clock
 * @param written per unit, the changes written here that some region has not applied yet; a unit absent has none
 * @param applied per other region (the origin), per unit, the last position of the origin's changes applied here; a
 *                pair absent has applied nothing
 */
public record UnitPositions(boolean known, Instant readAt, Map<String, Written> written,
                            Map<Region, Map<String, Long>> applied) {

    /** No positions read: every link from or to the region is unknown. */
    public static final UnitPositions NONE = new UnitPositions(false, Instant.EPOCH, Map.of(), Map.of());

    /** Freezes the maps, keeping their order. */
    public UnitPositions {
        Objects.requireNonNull(readAt, "readAt");
        written = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(written, "written")));
        Map<Region, Map<String, Long>> copy = new LinkedHashMap<>();
        Objects.requireNonNull(applied, "applied").forEach((origin, units) -> {
            units.forEach((unit, position) -> {
                if (position < 0) {
                    throw new IllegalArgumentException("positions.applied." + origin + "." + unit + ": " + position
                                                       + " (expected: >= 0)");
                }
            });
            copy.put(origin, Collections.unmodifiableMap(new LinkedHashMap<>(units)));
        });
        applied = Collections.unmodifiableMap(copy);
    }

    /** Positions read at {@code readAt}. */
    public static UnitPositions of(Instant readAt, Map<String, Written> written,
                                   Map<Region, Map<String, Long>> applied) {
        return new UnitPositions(true, readAt, written, applied);
    }

    /** The last position of {@code origin}'s changes of {@code unit} applied here; 0 when none. */
    public long appliedFrom(Region origin, String unit) {
        return applied.getOrDefault(origin, Map.of()).getOrDefault(unit, 0L);
    }

    /**
     * One unit's changes written in the reporting region and not yet trimmed (some region has not applied them):
     * their count, the oldest and the newest. Positions grow with every change of the region, across units.
     *
     * @param pending          how many changes of the unit are kept, at least 1
     * @param oldest           the position of the oldest of them
     * @param oldestWrittenAt  when it was written, by the writer's clock
     * @param head             the position of the newest (what the region has written)
     * @param headWrittenAt    when it was written
     */
    public record Written(long pending, long oldest, Instant oldestWrittenAt, long head, Instant headWrittenAt) {

        /** Requires at least one change, and the oldest at or before the head. */
        public Written {
            Objects.requireNonNull(oldestWrittenAt, "oldestWrittenAt");
            Objects.requireNonNull(headWrittenAt, "headWrittenAt");
            if (pending < 1) {
                throw new IllegalArgumentException("pending: " + pending + " (expected: >= 1; leave out a unit with "
                                                   + "nothing kept)");
            }
            if (oldest < 0 || head < oldest) {
                throw new IllegalArgumentException("oldest: " + oldest + ", head: " + head
                                                   + " (expected: 0 <= oldest <= head)");
            }
        }
    }
}
