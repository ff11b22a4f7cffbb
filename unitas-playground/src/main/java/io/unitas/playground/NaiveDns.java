package io.unitas.playground;

import io.unitas.core.Region;
import java.util.List;

/**
 * What the seed's team had instead of routing: a DNS answer per user's home region. After a fault an operator
 * takes the faulted region out of DNS {@code reactionMillis} later (the seed: by hand, once orders were failing;
 * process-only health checks never did it), and clients follow only when their cached answer's TTL has run out;
 * after recovery the region is put back the same way. Times are drill milliseconds.
 */
final class NaiveDns {

    private final List<Region> regions;
    private final Region faulted;
    private final long reactionMillis;
    private final long ttlMillis;
    private volatile long outFrom = Long.MAX_VALUE;
    private volatile long backFrom = Long.MAX_VALUE;

    NaiveDns(List<Region> regions, Region faulted, long reactionMillis, long ttlMillis) {
        this.regions = List.copyOf(regions);
        this.faulted = faulted;
        this.reactionMillis = reactionMillis;
        this.ttlMillis = ttlMillis;
    }

    void faultAt(long millis) {
        outFrom = millis + reactionMillis + ttlMillis;
    }

    void recoveredAt(long millis) {
        backFrom = millis + reactionMillis + ttlMillis;
    }

    /** The region a client resolving for {@code home} at {@code nowMillis} is sent to. */
    Region resolve(Region home, long nowMillis) {
        boolean out = nowMillis >= outFrom && nowMillis < backFrom;
        if (!out || !home.equals(faulted)) {
            return home;
        }
        return regions.stream().filter(r -> !r.equals(faulted)).findFirst().orElse(home);
    }
}
