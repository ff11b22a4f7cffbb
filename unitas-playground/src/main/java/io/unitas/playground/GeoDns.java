package io.unitas.playground;

import io.unitas.core.Region;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the naive setup's users have instead of a gateway: a GeoDNS answer naming their home region, with a
 * health check on each region's liveness endpoint. A region is taken out of the answers after {@code fall} probes in
 * a row that found none of its instances answering, and put back after {@code rise} that found one; a user whose
 * region is out is sent to the next region in the fallback order that is in. Liveness is the process's, not its
 * database's: a read-only database leaves the region in, as in the seed's incident. The probes' results come from
 * outside ({@link #observe}), so the decision is pure.
 */
final class GeoDns {

    private final List<Region> regions;
    private final int fall;
    private final int rise;
    private final Map<Region, int[]> streaks = new ConcurrentHashMap<>();
    private final Map<Region, Boolean> in = new ConcurrentHashMap<>();

    GeoDns(List<Region> regions, int fall, int rise) {
        if (fall < 1 || rise < 1) {
            throw new IllegalArgumentException("fall " + fall + ", rise " + rise + " (expected: at least 1 each)");
        }
        this.regions = List.copyOf(regions);
        this.fall = fall;
        this.rise = rise;
        this.regions.forEach(r -> {
            streaks.put(r, new int[1]);
            in.put(r, true);
        });
    }

    /** One probe of {@code region}: whether any of its instances answered its liveness endpoint. */
    synchronized void observe(Region region, boolean answered) {
        int[] streak = streaks.get(region);
        boolean wasIn = in.get(region);
        if (answered == wasIn) {
            streak[0] = 0;
            return;
        }
        streak[0]++;
        if (streak[0] >= (wasIn ? fall : rise)) {
            in.put(region, !wasIn);
            streak[0] = 0;
        }
    }

    /** Whether {@code region} is in the answers. */
    boolean isIn(Region region) {
        return in.get(region);
    }

    /**
     * The region the answer for {@code home}'s users names now: home while it is in, else the first region in the
     * fallback order that is (the same order the unitas side's users try the gateways in), else home.
     */
    Region resolve(Region home) {
        List<Region> order = new ArrayList<>(List.of(home));
        regions.stream().filter(r -> !r.equals(home)).forEach(order::add);
        return order.stream().filter(this::isIn).findFirst().orElse(home);
    }
}
