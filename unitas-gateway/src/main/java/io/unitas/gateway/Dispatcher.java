package io.unitas.gateway;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.unitas.control.client.state.RoutingState;
import io.unitas.control.client.state.StateParts;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.RouteDecision;
import io.unitas.core.fence.FencePolicy;
import io.unitas.core.fence.TokenBucket;
import io.unitas.core.propagation.HopRule;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;

/**
 * Decides what happens to one request from its method, headers, the current routing state and the time, with no
 * I/O: routing key → unit → home region → the core's route decision (reads and writes apart: a read-only region
 * keeps its reads, its writes follow the unit's {@link ReadOnlyPolicy}) → target region. A failover of a down home
 * spills over by the routing key's band ({@link io.unitas.core.capacity.SpilloverBands}) when the topology has
 * capacities and the rules unit loads, exactly as {@code unitas replay --spillover} predicts per user.
 *
 * <p>Stamps ({@code x-unitas-*} and the configured header names) are followed only from trusted peers, the other
 * regions' gateways; from anyone else they are removed first, so a client cannot pick its region past health and
 * fences. A stamped request is not routed again, but its unit is derived from its key and fenced by it; a write
 * whose unit cannot be derived is refused while any unit is fenced.
 */
final class Dispatcher {

    static final String PREROUTED = "prerouted";
    private static final AsciiString STAMP_PREFIX = AsciiString.cached("x-unitas-");

    private final Region self;
    private final AsciiString unitHeader;
    private final AsciiString regionHeader;
    private final AsciiString hopsHeader;
    /** The configured stamp names that may lack the {@code x-unitas-} prefix (seed 004's {@code n-d-region}). */
    private final AsciiString[] stampNames;
    private final HopRule hopRule;
    private final GatewayConfig.Routing routing;
    private final Clock clock;
    private final DecisionCache forwards = new DecisionCache();

    Dispatcher(GatewayConfig config, Clock clock) {
        this.self = config.region();
        GatewayConfig.Headers h = config.headers();
        this.unitHeader = AsciiString.cached(h.unit());
        this.regionHeader = AsciiString.cached(h.region());
        this.hopsHeader = AsciiString.cached(h.hops());
        this.stampNames = new AsciiString[] {unitHeader, regionHeader, AsciiString.cached(h.origin()), hopsHeader};
        this.hopRule = new HopRule(config.hopLimit());
        this.routing = config.routing();
        this.clock = clock;
    }

    /**
     * The decision for one request; {@code trustedPeer} says whether it came from another region's gateway. From
     * anyone else its stamps are removed from {@code in} first.
     */
    Decision decide(RoutingState s, String method, String path, HttpHeaders in, RequestView view,
                    boolean trustedPeer) {
        if (!trustedPeer) {
            stripStamps(in);
        }
        if (s == null) {
            return Decision.refuse(null, null, null, null, ProblemDetail.of(
                    503, "no-routing-state", "gateway " + self + " has no routing state yet", Duration.ofSeconds(1)));
        }
        String stamp = in.get(regionHeader);
        int hops = HopRule.parseHops(in.get(hopsHeader));
        return switch (hopRule.judge(stamp, hops)) {
            case LOOP -> Decision.refuse(in.get(unitHeader), null, null, null, ProblemDetail.of(
                    508, "loop-detected",
                    "request passed " + hops + " unitas gateways (limit " + hopRule.limit() + ")"));
            case PREROUTED -> prerouted(s, method, path, view, stamp, hops);
            case ROUTE -> route(s, method, path, view, hops);
        };
    }

    /**
     * Whether {@code name} must reach the upstream even when a client's {@code Connection} header names it: a stamp,
     * or a header the rules read the routing key from ({@code Cookie} too, when a cookie is a key source). Asked only
     * for names a {@code Connection} header lists.
     */
    boolean keepsUpstream(RoutingState s, CharSequence name) {
        if (isStamp(name)) {
            return true;
        }
        for (KeySource source : s.rules().sources()) {
            if (source.kind() == KeySource.Kind.HEADER && AsciiString.contentEqualsIgnoreCase(source.name(), name)
                || source.kind() == KeySource.Kind.COOKIE
                   && AsciiString.contentEqualsIgnoreCase(HttpHeaderNames.COOKIE, name)) {
                return true;
            }
        }
        return false;
    }

    /** Removes every {@code x-unitas-*} header and every configured stamp name. Allocates only when one is found. */
    private void stripStamps(HttpHeaders in) {
        List<CharSequence> found = null;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = in.iteratorCharSequence(); it.hasNext(); ) {
            CharSequence name = it.next().getKey();
            if (isStamp(name)) {
                if (found == null) {
                    found = new ArrayList<>(2);
                }
                found.add(name);
            }
        }
        if (found != null) {
            found.forEach(in::remove);
        }
    }

    private boolean isStamp(CharSequence name) {
        if (AsciiString.regionMatches(name, true, 0, STAMP_PREFIX, 0, STAMP_PREFIX.length())) {
            return true;
        }
        for (AsciiString stamp : stampNames) {
            if (stamp.length() == name.length() && stamp.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private Decision route(RoutingState s, String method, String path, RequestView view, int hops) {
        UnitLookup lookup = s.rules().lookup(view);
        ProblemDetail unroutable = unroutable(lookup);
        if (unroutable != null) {
            return Decision.refuse(null, null, null, null, unroutable);
        }
        Unit unit = lookup.unit();
        String unitId = unit == null ? null : unit.id();
        Region home = lookup.region();
        long now = clock.millis();
        boolean write = s.fences().writes().isWrite(method, path);
        RouteDecision decision = write
                ? s.router().routeWrite(home.id(), s.health(), now, routing.onReadOnly(unitId))
                : s.router().route(home.id(), s.health(), now);
        RouteDecision spilled = s.spill().decide(decision, lookup.key(), now);
        // A write keeps the routed region (the first admitted, writable) where its band's region is read-only.
        if (spilled != decision && (!write || s.health().get(spilled.target()).writable())) {
            decision = spilled;
        }
        if (decision.outcome() == RouteDecision.Outcome.READ_ONLY) {
            return Decision.refuse(unitId, home, decision.target(), decision.outcome().reason(), ProblemDetail.of(
                    503, "read-only", decision.message() + (unitId == null ? "" : " (unit " + unitId + ")")
                                      + "; reads still pass",
                    StateParts.DEFAULT_RETRY_AFTER));
        }
        if (!decision.hasTarget()) {
            return Decision.refuse(unitId, home, null, null, ProblemDetail.of(
                    503, "no-healthy-region",
                    decision.message() + (unitId == null ? "" : " (unit " + unitId + ")"), Duration.ofSeconds(5)));
        }
        return target(s, method, path, view, unit, unitId, home, decision.target(), decision.outcome().reason(),
                      hops);
    }

    /** The answer to a request whose key names no unit or center, or {@code null} when it names one. */
    private static ProblemDetail unroutable(UnitLookup lookup) {
        return switch (lookup.outcome()) {
            case UNIT, CENTER -> null;
            case MISSING_KEY -> ProblemDetail.of(400, "missing-routing-key", lookup.message());
            case AMBIGUOUS_KEY -> ProblemDetail.of(400, "ambiguous-routing-key", lookup.message());
            default -> ProblemDetail.of(400, "unroutable-key", lookup.message());
        };
    }

    /**
     * A request routed by a trusted peer: it goes where the stamp says, and its unit (for fences and gray rules)
     * is the one its key names, never a unit header it carries.
     */
    private Decision prerouted(RoutingState s, String method, String path, RequestView view, String stamp,
                               int hops) {
        UnitLookup lookup = s.rules().lookup(view);
        if (lookup.outcome() == UnitLookup.Outcome.AMBIGUOUS_KEY) { // a peer would not send it: the service might
            return Decision.refuse(null, null, null, PREROUTED, unroutable(lookup));
        }
        boolean derived = unroutable(lookup) == null;
        Unit unit = derived ? lookup.unit() : null;
        String unitId = unit == null ? null : unit.id();
        Region home = derived ? lookup.region() : null;
        Region target = s.rules().topology().region(stamp).orElse(null);
        if (target == null) {
            return Decision.refuse(unitId, home, null, PREROUTED, ProblemDetail.of(
                    400, "unknown-region", regionHeader + ": '" + stamp + "' names no region of the topology"));
        }
        if (!derived && !s.fences().fences().isEmpty() && s.fences().writes().isWrite(method, path)) {
            return Decision.refuse(null, null, target, PREROUTED, ProblemDetail.of(
                    503, "write-fenced", "a pre-routed write whose unit cannot be told from its key ("
                                         + lookup.message() + ") is refused while units are fenced",
                    StateParts.DEFAULT_RETRY_AFTER));
        }
        return target(s, method, path, view, unit, unitId, home, target, PREROUTED, hops);
    }

    /**
     * A request whose target is known: the write fence first, then the gray version (only where the unit is at
     * home: another region need not run the same versions).
     */
    private Decision target(RoutingState s, String method, String path, RequestView view, Unit unit,
                            String unitId, Region home, Region target, String route, int hops) {
        ProblemDetail fenced = unitId == null ? null : fence(s, unitId, method, path, target);
        if (fenced != null) {
            return Decision.refuse(unitId, home, target, route, fenced);
        }
        String version = unit != null && target.equals(self) && home.equals(self)
                         ? s.rules().grayVersion(unit, view) : null;
        return forwards.forward(unitId, home, target, route, version, hops);
    }

    /** The fence's answer to a {@code method} request of {@code path} for {@code unitId}; {@code null}: it passes. */
    private static ProblemDetail fence(RoutingState s, String unitId, String method, String path, Region target) {
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
            return ProblemDetail.of(503, "write-fenced", "writes of unit " + unitId
                               + " are throttled while its data catches up in " + target,
                               Duration.ofSeconds(Math.max(1, (waitNanos + 999_999_999L) / 1_000_000_000L)));
        }
        return ProblemDetail.of(503, "write-fenced",
                           "writes of unit " + unitId + " are fenced while its data moves; reads still pass",
                           fence.retryAfter());
    }
}
