package io.unitas.dns;

import java.util.ArrayList;
import java.util.List;

import io.unitas.core.HealthSnapshot;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.health.DynamicTtl;

/**
 * Which region answers a client, for how long, and in which order SRV priorities list the regions: the core's route
 * decision with the client's region as home, so DNS and the gateway agree.
 *
 * @param serving the region whose addresses are answered
 * @param kind    why that region
 * @param ttl     seconds: the seed's formula with the serving region's score at home, the minimum otherwise
 * @param order   the serving region, then its fallback order: SRV priorities 10, 20, 30…
 */
record AnswerPlan(Region serving, Kind kind, long ttl, List<Region> order) {

    /** Why the serving region serves. */
    enum Kind {
        /** The client's own region is admitted. */
        HOME,
        /** The first admitted region of the client region's fallback order. */
        FAILOVER,
        /** No region is admitted: the last one that was, so clients keep an answer (never SERVFAIL). */
        NO_HEALTHY_REGION
    }

    /** The SRV priority of the regions at {@code index} in {@link #order()}. */
    static int priority(int index) {
        return 10 * (index + 1);
    }

    /**
     * Plans the answer for a client located in {@code client} at {@code nowMs}; {@code lastHealthy} is the region
     * that last served it while one was admitted ({@code null} when none ever did, then {@code client} serves).
     */
    static AnswerPlan of(Router router, HealthSnapshot health, Region client, Region lastHealthy, long nowMs,
                         long baseTtl, long minTtl) {
        RouteDecision d = router.route(client.id(), health, nowMs);
        if (d.outcome() == RouteDecision.Outcome.HOME) {
            double score = health.get(d.target()).score();
            return new AnswerPlan(d.target(), Kind.HOME, DynamicTtl.seconds(baseTtl, minTtl, score),
                                  order(router, d.target()));
        }
        if (d.hasTarget()) {
            return new AnswerPlan(d.target(), Kind.FAILOVER, minTtl, order(router, d.target()));
        }
        Region last = lastHealthy != null ? lastHealthy : client;
        return new AnswerPlan(last, Kind.NO_HEALTHY_REGION, minTtl, order(router, last));
    }

    private static List<Region> order(Router router, Region serving) {
        List<Region> out = new ArrayList<>();
        out.add(serving);
        for (Region r : router.topology().fallback(serving)) {
            if (!out.contains(r)) {
                out.add(r);
            }
        }
        return List.copyOf(out);
    }
}
