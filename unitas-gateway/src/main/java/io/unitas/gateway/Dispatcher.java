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
import io.unitas.core.ProblemType;
import io.unitas.core.Region;
import io.unitas.core.propagation.HopRule;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.RequestView;

/**
 * Decides what happens to one request from its method, headers, the current routing state and the time, with no
 * I/O: the stamps and the hop limit here, everything else by the core's one {@link RoutingDecision} (routing key →
 * unit → route or write route → spillover → read-only → fence → throttle), whose {@link Verdict} becomes the
 * request's {@link Decision}.
 *
 * <p>Stamps ({@code x-unitas-*} and the configured header names) are followed only from trusted peers, the other
 * regions' gateways; from anyone else they are removed first, so a client cannot pick its region past health and
 * fences. A stamped request is not routed again, but its unit is derived from its key and fenced by it; a write
 * whose unit cannot be derived is refused while any unit is fenced.
 */
final class Dispatcher {

    static final String PREROUTED = RoutingDecision.PREROUTED;
    private static final AsciiString STAMP_PREFIX = AsciiString.cached("x-unitas-");

    private final Region self;
    private final AsciiString unitHeader;
    private final AsciiString regionHeader;
    private final AsciiString hopsHeader;
    /** The configured stamp names that may lack the {@code x-unitas-} prefix (seed 004's {@code n-d-region}). */
    private final AsciiString[] stampNames;
    private final HopRule hopRule;
    private final RoutingDecision decision;
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
        this.decision = RoutingDecision.of(self, config.routing()::onReadOnly, h.region());
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
            return Decision.refuse(null, null, null, null, ProblemType.NO_ROUTING_STATE.problem(
                    "gateway " + self + " has no routing state yet", Duration.ofSeconds(1)));
        }
        String stamp = in.get(regionHeader);
        int hops = HopRule.parseHops(in.get(hopsHeader));
        return switch (hopRule.judge(stamp, hops)) {
            case LOOP -> Decision.refuse(in.get(unitHeader), null, null, null, ProblemType.LOOP_DETECTED.problem(
                    "request passed " + hops + " unitas gateways (limit " + hopRule.limit() + ")"));
            case PREROUTED -> of(decision.decide(s.snapshot(), method, path, view, stamp, clock.millis()), hops);
            case ROUTE -> of(decision.decide(s.snapshot(), method, path, view, null, clock.millis()), hops);
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

    /** The gateway's decision of the core's verdict: a forward found again per hop count, a refusal as its problem. */
    private Decision of(Verdict v, int hops) {
        if (v instanceof Verdict.Forward f) {
            return forwards.forward(f.unit(), f.home(), f.target(), f.route(), f.version(), hops);
        }
        Verdict.Refuse r = (Verdict.Refuse) v;
        return Decision.refuse(r.unit(), r.home(), r.target(), r.route(), r.problem());
    }
}
