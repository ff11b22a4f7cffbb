package io.unitas.gateway;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Router;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.fence.WriteFences;
import io.unitas.core.rules.UnitRules;

/**
 * Everything one request's decision reads, as one immutable snapshot swapped whole: the unit rules (with their
 * topology and gray rules), the router over that topology, region health and write fences, plus the token
 * buckets metering throttled units (carried over from the previous snapshot while a unit's fence is unchanged).
 *
 * @param revision  where the snapshot came from: the control plane's revision, or a reload counter
 * @param rules     unit rules and the topology they were validated against
 * @param router    routes over {@code rules.topology()}
 * @param health    region health
 * @param fences    write fences and the write methods
 * @param throttles the token bucket of every unit under a throttle fence
 */
record RoutingState(long revision, UnitRules rules, Router router, HealthSnapshot health, WriteFences fences,
                    Map<String, TokenBucket> throttles) {

    /**
     * A snapshot whose throttle buckets are new, or taken from {@code previous} where the fence is unchanged, and
     * whose health knows since when each region is healthy: from its source, or from {@code previous} and
     * {@code nowMs} ({@link HealthSnapshot#since}), so the router's {@code holdDown} can hold a recovered region back.
     */
    static RoutingState of(long revision, UnitRules rules, HealthSnapshot health, WriteFences fences,
                           RoutingState previous, LongSupplier ticker, long nowMs, Duration holdDown) {
        Map<String, TokenBucket> buckets = new HashMap<>();
        fences.fences().forEach((unit, fence) -> {
            if (fence.mode() == FencePolicy.Mode.THROTTLE) {
                boolean same = previous != null && fence.equals(previous.fences.fences().get(unit))
                               && previous.throttles.containsKey(unit);
                buckets.put(unit, same ? previous.throttles.get(unit) : TokenBucket.of(fence, ticker));
            }
        });
        HealthSnapshot tracked = health.since(previous == null ? null : previous.health, nowMs);
        return new RoutingState(revision, rules, Router.of(rules.topology(), holdDown), tracked, fences,
                                Map.copyOf(buckets));
    }
}
