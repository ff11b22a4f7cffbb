package io.unitas.gateway;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.propagation.HopRule;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;

/**
 * Decides what happens to one request from its method, headers and the current routing state, with no I/O:
 * routing key → unit → home region → the core's route decision → target region. A request stamped by another
 * unitas gateway goes where the stamp says without being routed again; the hop limit, write fences and gray
 * versions apply on the way.
 */
final class Dispatcher {

    static final String PREROUTED = "prerouted";

    private final Region self;
    private final AsciiString unitHeader;
    private final AsciiString regionHeader;
    private final AsciiString hopsHeader;
    private final HopRule hopRule;

    Dispatcher(GatewayConfig config) {
        this.self = config.region();
        this.unitHeader = AsciiString.cached(config.headers().unit());
        this.regionHeader = AsciiString.cached(config.headers().region());
        this.hopsHeader = AsciiString.cached(config.headers().hops());
        this.hopRule = new HopRule(config.hopLimit());
    }

    Decision decide(RoutingState s, String method, String path, HttpHeaders in, RequestView view) {
        if (s == null) {
            return Decision.refuse(null, null, null, null, new Problem(
                    503, "no-routing-state", "gateway " + self + " has no routing state yet", 1));
        }
        String stamp = in.get(regionHeader);
        int hops = HopRule.parseHops(in.get(hopsHeader));
        return switch (hopRule.judge(stamp, hops)) {
            case LOOP -> Decision.refuse(in.get(unitHeader), null, null, null, new Problem(
                    508, "loop-detected",
                    "request passed " + hops + " unitas gateways (limit " + hopRule.limit() + ")", 0));
            case PREROUTED -> prerouted(s, method, path, in, view, stamp, hops);
            case ROUTE -> route(s, method, path, view, hops);
        };
    }

    private Decision route(RoutingState s, String method, String path, RequestView view, int hops) {
        UnitLookup lookup = s.rules().lookup(view);
        switch (lookup.outcome()) {
            case UNIT, CENTER -> {
            }
            case MISSING_KEY -> {
                return Decision.refuse(null, null, null, null,
                                       new Problem(400, "missing-routing-key", lookup.message(), 0));
            }
            default -> {
                return Decision.refuse(null, null, null, null,
                                       new Problem(400, "unroutable-key", lookup.message(), 0));
            }
        }
        Unit unit = lookup.unit();
        String unitId = unit == null ? null : unit.id();
        Region home = lookup.region();
        RouteDecision decision = s.router().route(home, s.health());
        if (!decision.hasTarget()) {
            return Decision.refuse(unitId, home, null, null, new Problem(
                    503, "no-healthy-region",
                    decision.message() + (unitId == null ? "" : " (unit " + unitId + ")"), 5));
        }
        return target(s, method, path, view, unit, unitId, home, decision.target(), decision.outcome().reason(),
                      hops);
    }

    private Decision prerouted(RoutingState s, String method, String path, HttpHeaders in, RequestView view,
                               String stamp, int hops) {
        String unitId = in.get(unitHeader);
        Unit unit = unitId == null ? null : s.rules().unit(unitId);
        Region home = unit == null ? null : unit.home();
        Region target = s.rules().topology().region(stamp).orElse(null);
        if (target == null) {
            return Decision.refuse(unitId, home, null, PREROUTED, new Problem(
                    400, "unknown-region", regionHeader + ": '" + stamp + "' names no region of the topology", 0));
        }
        return target(s, method, path, view, unit, unitId, home, target, PREROUTED, hops);
    }

    /**
     * A request whose target is known: the write fence first, then the gray version (only where the unit is at
     * home: another region need not run the same versions).
     */
    private Decision target(RoutingState s, String method, String path, RequestView view, Unit unit,
                            String unitId, Region home, Region target, String route, int hops) {
        Problem fenced = unitId == null ? null : fence(s, unitId, method, path, target);
        if (fenced != null) {
            return Decision.refuse(unitId, home, target, route, fenced);
        }
        String version = unit != null && target.equals(self) && home.equals(self)
                         ? s.rules().grayVersion(unit, view) : null;
        return new Decision(unitId, home, target, route, version, hops, null);
    }

    /** The fence's answer to a {@code method} request of {@code path} for {@code unitId}; {@code null}: it passes. */
    private static Problem fence(RoutingState s, String unitId, String method, String path, Region target) {
        FencePolicy fence = s.fences().fenceFor(unitId, method, path);
        if (fence == null) {
            return null;
        }
        if (fence.mode() == FencePolicy.Mode.THROTTLE) {
            TokenBucket bucket = s.throttles().get(unitId);
            long waitNanos = bucket == null ? 0 : bucket.tryTake();
            if (waitNanos == 0) {
                return null;
            }
            return new Problem(503, "write-fenced", "writes of unit " + unitId
                               + " are throttled while its data catches up in " + target,
                               Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L));
        }
        return new Problem(503, "write-fenced",
                           "writes of unit " + unitId + " are fenced while its data moves; reads still pass",
                           fence.retryAfter().toSeconds());
    }
}
