package io.unitas.gateway;

import java.util.function.Supplier;

import com.linecorp.armeria.client.ResponseTimeoutException;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.RequestHeaders;
import com.linecorp.armeria.common.RequestHeadersBuilder;
import com.linecorp.armeria.common.logging.RequestLog;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;

import io.netty.util.AsciiString;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.fence.Fence;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.propagation.HopRule;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;

/**
 * The per-request path: routing key → unit → home region → the core's route decision → target region's
 * upstreams, streamed both ways. A request stamped by another unitas gateway goes where the stamp says without
 * being routed again; write fences, gray versions and the hop limit apply on the way.
 */
final class ProxyService implements HttpService {

    private static final HttpStatus LOOP_DETECTED = HttpStatus.valueOf(508);

    private final Region self;
    // Header names as netty's AsciiString, hashed once rather than on every get and set.
    private final AsciiString unitHeader;
    private final AsciiString regionHeader;
    private final AsciiString originHeader;
    private final AsciiString hopsHeader;
    private final AsciiString servedByHeader;
    private final AsciiString routeHeader;
    private final HopRule hopRule;
    private final Supplier<RoutingState> state;
    private final Upstreams upstreams;
    private final GatewayMetrics metrics;

    ProxyService(GatewayConfig config, Supplier<RoutingState> state, Upstreams upstreams, GatewayMetrics metrics) {
        this.self = config.region();
        GatewayConfig.Headers names = config.headers();
        this.unitHeader = HttpHeaderNames.of(names.unit());
        this.regionHeader = HttpHeaderNames.of(names.region());
        this.originHeader = HttpHeaderNames.of(names.origin());
        this.hopsHeader = HttpHeaderNames.of(names.hops());
        this.servedByHeader = HttpHeaderNames.of(names.servedBy());
        this.routeHeader = HttpHeaderNames.of(names.route());
        this.hopRule = new HopRule(config.hopLimit());
        this.state = state;
        this.upstreams = upstreams;
        this.metrics = metrics;
    }

    @Override
    public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
        RequestHeaders in = req.headers();
        RoutingState s = state.get();
        if (s == null) {
            return answer(ctx, in, null, null, null, GatewayMetrics.NONE,
                          problem(HttpStatus.SERVICE_UNAVAILABLE, "no-routing-state",
                                  "gateway " + self + " has no routing state yet", 1));
        }
        String stamp = in.get(regionHeader);
        int hops = HopRule.parseHops(in.get(hopsHeader));
        return switch (hopRule.judge(stamp, hops)) {
            case LOOP -> answer(ctx, in, in.get(unitHeader), null, null, GatewayMetrics.NONE,
                                problem(LOOP_DETECTED, "loop-detected", "request passed " + hops
                                        + " unitas gateways (limit " + hopRule.limit() + ")", 0));
            case PREROUTED -> prerouted(ctx, req, s, stamp, hops);
            case ROUTE -> route(ctx, req, s, hops);
        };
    }

    private HttpResponse route(ServiceRequestContext ctx, HttpRequest req, RoutingState s, int hops) {
        RequestHeaders in = req.headers();
        HttpRequestView view = new HttpRequestView(ctx, in);
        UnitLookup lookup = s.rules().lookup(view);
        Unit unit = lookup.unit();
        String unitId = unit == null ? null : unit.id();
        switch (lookup.outcome()) {
            case UNIT, CENTER -> {
            }
            case MISSING_KEY -> {
                return answer(ctx, in, null, null, null, GatewayMetrics.NONE,
                              problem(HttpStatus.BAD_REQUEST, "missing-routing-key", lookup.message(), 0));
            }
            default -> {
                return answer(ctx, in, null, null, null, GatewayMetrics.NONE,
                              problem(HttpStatus.BAD_REQUEST, "unroutable-key", lookup.message(), 0));
            }
        }
        Region home = lookup.region();
        RouteDecision decision = s.router().route(home, s.health());
        if (!decision.hasTarget()) {
            return answer(ctx, in, unitId, home, null, GatewayMetrics.NONE,
                          problem(HttpStatus.SERVICE_UNAVAILABLE, "no-healthy-region",
                                  decision.message() + (unitId == null ? "" : " (unit " + unitId + ")"), 5));
        }
        return serve(ctx, req, s, view, unit, unitId, home, decision.target(), decision.outcome().reason(), hops);
    }

    private HttpResponse prerouted(ServiceRequestContext ctx, HttpRequest req, RoutingState s, String stamp,
                                   int hops) {
        RequestHeaders in = req.headers();
        String unitId = in.get(unitHeader);
        Unit unit = unitId == null ? null : s.rules().unit(unitId);
        Region home = unit == null ? null : unit.home();
        Region target = s.rules().topology().region(stamp).orElse(null);
        if (target == null) {
            return answer(ctx, in, unitId, home, null, "prerouted",
                          problem(HttpStatus.BAD_REQUEST, "unknown-region", regionHeader + ": '" + stamp
                                  + "' names no region of the topology", 0));
        }
        return serve(ctx, req, s, new HttpRequestView(ctx, in), unit, unitId, home, target, "prerouted", hops);
    }

    /**
     * Serves a request whose target is known: the write fence first, then the gray version (only where the unit is
     * at home: another region need not run the same versions), then the target's upstreams.
     */
    private HttpResponse serve(ServiceRequestContext ctx, HttpRequest req, RoutingState s, HttpRequestView view,
                               Unit unit, String unitId, Region home, Region target, String route, int hops) {
        HttpResponse fenced = fence(s, unitId, req.headers(), target);
        if (fenced != null) {
            return answer(ctx, req.headers(), unitId, home, target, route, fenced);
        }
        String version = unit != null && target.equals(self) && home.equals(self)
                         ? s.rules().grayVersion(unit, view) : null;
        return forward(ctx, req, unitId, home, target, route, version, hops);
    }

    /** The fence answer for a write of {@code unitId}, or {@code null} when the request passes. */
    private HttpResponse fence(RoutingState s, String unitId, RequestHeaders in, Region target) {
        if (unitId == null) {
            return null;
        }
        Fence fence = s.fences().fenceFor(unitId, in.method().name());
        if (fence == null) {
            return null;
        }
        long retryAfter = fence.retryAfter().toSeconds();
        if (fence.mode() == Fence.Mode.THROTTLE) {
            TokenBucket bucket = s.throttles().get(unitId);
            long waitNanos = bucket == null ? 0 : bucket.tryTake();
            if (waitNanos == 0) {
                return null;
            }
            retryAfter = Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L);
            return problem(HttpStatus.SERVICE_UNAVAILABLE, "write-fenced", "writes of unit " + unitId
                           + " are throttled while its data catches up in " + target, retryAfter);
        }
        return problem(HttpStatus.SERVICE_UNAVAILABLE, "write-fenced",
                       "writes of unit " + unitId + " are fenced while its data moves; reads still pass", retryAfter);
    }

    private HttpResponse forward(ServiceRequestContext ctx, HttpRequest req, String unitId, Region home,
                                 Region target, String route, String version, int hops) {
        RequestHeaders in = req.headers();
        Upstreams.Pool pool = upstreams.pool(target, version);
        if (pool == null) {
            return answer(ctx, in, unitId, home, target, route,
                          problem(HttpStatus.BAD_GATEWAY, "no-upstream",
                                  "no upstream endpoints configured for region " + target, 0));
        }
        RequestHeadersBuilder out = in.toBuilder()
                                      .set(regionHeader, target.id())
                                      .set(hopsHeader, Integer.toString(hops + 1));
        if (unitId != null) {
            out.set(unitHeader, unitId);
        }
        if (!in.contains(originHeader)) {
            out.set(originHeader, self.id());
        }
        RequestHeaders upstream = out.build();
        HttpResponse res = pool.clientFor(upstream).execute(req.withHeaders(upstream));
        String served = target.id();
        HttpResponse stamped = res.mapHeaders(h -> h.toBuilder()
                                                     .set(servedByHeader, served)
                                                     .set(routeHeader, route)
                                                     .build())
                                  .recover(cause -> upstreamFailure(cause, target));
        return answer(ctx, in, unitId, home, target, route, stamped);
    }

    private HttpResponse upstreamFailure(Throwable cause, Region target) {
        if (cause instanceof ResponseTimeoutException) {
            return problem(HttpStatus.GATEWAY_TIMEOUT, "upstream-timeout",
                           "upstream of region " + target + " did not answer in time", 0);
        }
        String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return problem(HttpStatus.BAD_GATEWAY, "upstream-failed", "upstream of region " + target + " failed: " + why,
                       0);
    }

    private HttpResponse problem(HttpStatus status, String type, String detail, long retryAfterSeconds) {
        return ProblemResponses.of(status, type, detail, servedByHeader, self.id(), retryAfterSeconds);
    }

    /** Returns {@code res}, recording the request's metrics and access log line once it has completed. */
    private HttpResponse answer(ServiceRequestContext ctx, RequestHeaders in, String unit, Region home,
                                Region target, String route, HttpResponse res) {
        String homeId = home == null ? GatewayMetrics.NONE : home.id();
        String targetId = target == null ? GatewayMetrics.NONE : target.id();
        ctx.log().whenComplete().thenAccept(log -> record(log, in, unit, homeId, targetId, route));
        return res;
    }

    private void record(RequestLog log, RequestHeaders in, String unit, String home, String target, String route) {
        metrics.record(in.method().name(), in.path(), unit == null ? "-" : unit, home, target, route,
                       log.responseHeaders().status().code(), log.totalDurationNanos());
    }
}
