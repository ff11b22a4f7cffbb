package io.unitas.dns;

import java.util.ArrayList;
import java.util.List;

import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.health.DynamicTtl;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.RoutingSnapshot;

/**
 * Which region answers a client, for how long, and in which order SRV priorities list the regions: the core's
 * routing decision (its region-level part, spillover included) with the client's region as home, so DNS and the
 * gateway agree.
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
        /** A later admitted region with room, by the client's band (the topology's capacities, the units' loads). */
        SPILLOVER,
        /** No admitted region had room: the first admitted one, by the client's band. */
        OVERFLOW,
        /** No region is admitted: the last one that was, so clients keep an answer (never SERVFAIL). */
        NO_HEALTHY_REGION
    }

    /** The SRV priority of the regions at {@code index} in {@link #order()}. */
    static int priority(int index) {
        return 10 * (index + 1);
    }

    /**
     * Plans the answer for a client located in {@code client} at {@code nowMs}, by the routing decision's
     * region-level part ({@link RoutingDecision#region}) with the client's region as home: a failover spills over
     * by the band of {@code clientKey} ({@link #clientKey}; {@code null}: none) when the state has capacities and
     * loads. {@code lastHealthy} is the region that last served it while one was admitted ({@code null} when none
     * ever did, then {@code client} serves).
     */
    static AnswerPlan of(RoutingSnapshot s, Region client, CharSequence clientKey, Region lastHealthy, long nowMs,
                         long baseTtl, long minTtl) {
        RouteDecision d = RoutingDecision.region(s, client.id(), clientKey, false, ReadOnlyPolicy.FENCE, nowMs);
        Router router = s.router();
        if (d.outcome() == RouteDecision.Outcome.HOME) {
            double score = s.health().get(d.target()).score();
            return new AnswerPlan(d.target(), Kind.HOME, DynamicTtl.seconds(baseTtl, minTtl, score),
                                  order(router, d.target()));
        }
        if (d.hasTarget()) {
            Kind kind = switch (d.outcome()) {
                case SPILLOVER -> Kind.SPILLOVER;
                case OVERFLOW -> Kind.OVERFLOW;
                default -> Kind.FAILOVER;
            };
            return new AnswerPlan(d.target(), kind, minTtl, order(router, d.target()));
        }
        Region last = lastHealthy != null ? lastHealthy : client;
        return new AnswerPlan(last, Kind.NO_HEALTHY_REGION, minTtl, order(router, last));
    }

    /**
     * The key a client spills over by: its subnet, the first {@code prefixBits} of {@code address} in hex with the
     * length, so every client of one subnet (one ECS scope) gets the same band.
     */
    static String clientKey(byte[] address, int prefixBits) {
        StringBuilder b = new StringBuilder(address.length * 2 + 4);
        int bits = Math.max(0, Math.min(prefixBits, address.length * 8));
        for (int i = 0; i < address.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            int octet = address[i] & (0xff << (8 - keep)) & 0xff;
            b.append(Character.forDigit(octet >> 4, 16)).append(Character.forDigit(octet & 0xf, 16));
        }
        return b.append('/').append(bits).toString();
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
