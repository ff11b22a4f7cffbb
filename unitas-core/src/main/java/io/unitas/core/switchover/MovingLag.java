package io.unitas.core.switchover;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

import io.unitas.core.Region;
import io.unitas.core.RegionHealth;
import io.unitas.core.health.HealthReport;
import io.unitas.core.health.UnitLag;

/**
 * How far the moving units' data is behind in the target, as their current homes report it: the largest lag of
 * any moving unit from its home to the target, or unknown when any unit's lag is not reported, or was reported
 * by a home whose report is no longer trusted, or was measured too long ago. Unknown never counts as caught up.
 *
 * @param lagMs  the largest moving unit's lag in milliseconds, or {@link RegionHealth#UNKNOWN_LAG}
 * @param detail what was seen, for the switchover's steps ({@code "u-sh lag 120 ms from cn to eu"})
 */
public record MovingLag(long lagMs, String detail) {

    /** Requires a detail and a lag of at least -1. */
    public MovingLag {
        Objects.requireNonNull(detail, "detail");
        if (lagMs < RegionHealth.UNKNOWN_LAG) {
            throw new IllegalArgumentException("lag_ms: " + lagMs + " (expected: >= 0, or -1 for unknown)");
        }
    }

    /** Whether every moving unit's lag is measured and fresh. */
    public boolean known() {
        return lagMs != RegionHealth.UNKNOWN_LAG;
    }

    /**
     * The lag of {@code units}, moving from {@code origins} to {@code target}, at {@code now}.
     *
     * @param trusted a region's last report while it is trusted (fresh), else empty
     * @param maxAge  a measurement older than this at {@code now} counts as unknown
     */
    public static MovingLag of(List<String> units, Map<String, Region> origins, Region target,
                               Function<Region, Optional<HealthReport>> trusted, Instant now, Duration maxAge) {
        return of(units, origins, target, trusted, now, maxAge, Instant.MIN);
    }

    /**
     * {@link #of(List, Map, Region, Function, Instant, Duration)} counting only what was measured at or after
     * {@code fencedAt}: a switchover's writes stop at its fence, and a measurement before it may miss the last of them.
     */
    public static MovingLag of(List<String> units, Map<String, Region> origins, Region target,
                               Function<Region, Optional<HealthReport>> trusted, Instant now, Duration maxAge,
                               Instant fencedAt) {
        long worst = 0;
        String worstText = "";
        for (String unit : units) {
            Region home = origins.get(unit);
            if (home == null) {
                return unknown(unit + " lag unknown: no home recorded");
            }
            Optional<HealthReport> report = trusted.apply(home);
            if (report.isEmpty()) {
                return unknown(unit + " lag unknown: no fresh health report from its home " + home);
            }
            Optional<UnitLag> lag = report.get().unitLag(unit, target);
            if (lag.isEmpty()) {
                return unknown(unit + " lag unknown: " + home + " reports no lag of it to " + target);
            }
            Duration age = Duration.between(lag.get().measuredAt(), now);
            if (age.compareTo(maxAge) > 0) {
                return unknown(unit + " lag unknown: " + home + " measured it at " + lag.get().measuredAt()
                               + ", more than " + maxAge.toMillis() + " ms ago");
            }
            if (lag.get().measuredAt().isBefore(fencedAt)) {
                return unknown(unit + " lag unknown: " + home + " measured it at " + lag.get().measuredAt()
                               + ", before the fence at " + fencedAt);
            }
            long changes = lag.get().changes();
            // a change not applied is a lag, whatever its age reads (the target read before it was written)
            long lagMs = changes > 0 ? Math.max(1, lag.get().lagMs()) : lag.get().lagMs();
            if (worstText.isEmpty() || lagMs > worst) {
                worst = lagMs;
                worstText = unit + " lag " + lag.get().lagMs() + " ms" + (changes == UnitLag.UNKNOWN_CHANGES ? ""
                        : " (" + changes + (changes == 1 ? " change)" : " changes)")) + " from " + home + " to "
                        + target;
            }
        }
        String detail = worst == 0 ? String.join(", ", units) + " caught up in " + target : worstText;
        return new MovingLag(worst, units.size() > 1 && worst > 0 ? "largest: " + detail : detail);
    }

    /** An unknown lag, with why. */
    public static MovingLag unknown(String why) {
        return new MovingLag(RegionHealth.UNKNOWN_LAG, why);
    }
}
