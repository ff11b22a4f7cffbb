package io.unitas.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * An immutable table of region health at one revision. A region missing from it counts as unhealthy:
 * absence of evidence is not health.
 */
public final class HealthSnapshot {

    private static final HealthSnapshot EMPTY = new HealthSnapshot(0, Map.of());

    private final long revision;
    private final Map<Region, RegionHealth> regions;

    private HealthSnapshot(long revision, Map<Region, RegionHealth> regions) {
        this.revision = revision;
        this.regions = regions;
    }

    /** A snapshot in which every region is unhealthy. */
    public static HealthSnapshot empty() {
        return EMPTY;
    }

    /** A snapshot at revision 0 from full health records. */
    public static HealthSnapshot of(Map<Region, RegionHealth> regions) {
        return of(0, regions);
    }

    /** A snapshot at {@code revision} from full health records; the map is copied, keeping its order. */
    public static HealthSnapshot of(long revision, Map<Region, RegionHealth> regions) {
        if (revision < 0) {
            throw new IllegalArgumentException("revision: " + revision + " (expected: >= 0)");
        }
        Map<Region, RegionHealth> copy = new LinkedHashMap<>();
        regions.forEach((region, health) -> copy.put(
                Objects.requireNonNull(region, "region"), Objects.requireNonNull(health, "health of " + region)));
        return new HealthSnapshot(revision, Collections.unmodifiableMap(copy));
    }

    /** A snapshot at revision 0 from plain up/down flags, as the seed's {@code map[Region]bool}. */
    public static HealthSnapshot ofFlags(Map<Region, Boolean> healthy) {
        Map<Region, RegionHealth> regions = new LinkedHashMap<>();
        healthy.forEach((region, up) -> regions.put(region, RegionHealth.of(Boolean.TRUE.equals(up))));
        return of(0, regions);
    }

    /** Whether {@code region} is present and healthy. Allocation-free. */
    public boolean isHealthy(Region region) {
        RegionHealth health = regions.get(region);
        return health != null && health.healthy();
    }

    /** The health of {@code region}, or {@link RegionHealth#down()} with a reason when absent. */
    public RegionHealth get(Region region) {
        RegionHealth health = regions.get(region);
        return health != null ? health
                              : RegionHealth.down(java.util.List.of("no health reported for region " + region));
    }

    /** Every reported region, in the order given. */
    public Map<Region, RegionHealth> regions() {
        return regions;
    }

    /** Monotonic revision of this snapshot (0 when built by hand). */
    public long revision() {
        return revision;
    }

    /**
     * This snapshot with the time each healthy region turned healthy filled in where its source left it out
     * ({@link RegionHealth#SINCE_UNKNOWN}), from the {@code previous} snapshot its reader saw: a region healthy in
     * both keeps its time from {@code previous}; a region that was unhealthy or absent there turned healthy at
     * {@code nowMs}. With no previous snapshot (a reader that just started) nothing is filled in, so what is healthy
     * at start-up is admitted at once. Returns {@code this} when nothing changes.
     */
    public HealthSnapshot since(HealthSnapshot previous, long nowMs) {
        if (previous == null) {
            return this;
        }
        Map<Region, RegionHealth> filled = null;
        for (Map.Entry<Region, RegionHealth> e : regions.entrySet()) {
            RegionHealth now = e.getValue();
            if (!now.healthy() || now.healthySinceMs() != RegionHealth.SINCE_UNKNOWN) {
                continue;
            }
            RegionHealth before = previous.regions.get(e.getKey());
            long since = before != null && before.healthy() ? before.healthySinceMs() : nowMs;
            if (since != RegionHealth.SINCE_UNKNOWN) {
                if (filled == null) {
                    filled = new LinkedHashMap<>(regions);
                }
                filled.put(e.getKey(), now.healthySince(since));
            }
        }
        return filled == null ? this : new HealthSnapshot(revision, Collections.unmodifiableMap(filled));
    }

    /** A copy with {@code region} replaced, at {@code revision}. */
    public HealthSnapshot with(long revision, Region region, RegionHealth health) {
        Map<Region, RegionHealth> copy = new LinkedHashMap<>(regions);
        copy.put(region, health);
        return of(revision, copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HealthSnapshot other && revision == other.revision && regions.equals(other.regions);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(revision) * 31 + regions.hashCode();
    }

    @Override
    public String toString() {
        return "HealthSnapshot{revision=" + revision + ", regions=" + regions + '}';
    }
}
