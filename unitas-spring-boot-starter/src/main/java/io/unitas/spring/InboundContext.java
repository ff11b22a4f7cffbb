package io.unitas.spring;

import java.time.Clock;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.Region;
import io.unitas.core.routing.RoutingDecision;
import io.unitas.core.routing.Verdict;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitLookup;

/**
 * What the Servlet filter and the WebFlux filter both do with an inbound request: read the gateway's stamp, place a
 * request that has none by its routing key (the gateway's rules: a direct call that bypassed the gateway still has a
 * unit), refuse a request whose routing key is ambiguous, and judge its write against the fences.
 */
final class InboundContext {

    /** The request attribute holding the request's {@link Accepted#route}. */
    static final String ROUTE_ATTRIBUTE = InboundContext.class.getName() + ".route";
    static final String NONE = "none";
    static final String OFF_ROUTE = "off_route";

    private final RoutingHeaders headers;
    private final UnitasRoutingState state;
    private final boolean fence;
    private final String region;
    private final Clock clock;
    private final RoutingDecision decision;

    InboundContext(RoutingHeaders headers, UnitasRoutingState state, boolean fence, String region, Clock clock) {
        this.headers = headers;
        this.state = state;
        this.fence = fence;
        this.region = region;
        this.clock = clock;
        // The starter does not know a gateway's per-unit read-only policy: the gateway's default.
        this.decision = RoutingDecision.of(Region.of(region), ReadOnlyPolicy.FENCE);
    }

    /**
     * The request's context: its stamp, with the unit its key names when it carries a key. The key wins over a
     * stamped unit, as at the gateway (a unit header alone can be made up; the key is the user's).
     */
    RoutingContext read(RequestView request, RoutingSnapshot snapshot) {
        return served(keyed(headers.read(request::header), snapshot.rules().lookup(request)));
    }

    /** The context as served here: its region is this one, so the stamp written on the way out names where it ran. */
    private RoutingContext served(RoutingContext context) {
        return context.isEmpty() ? context : context.withRegion(region);
    }

    private static RoutingContext keyed(RoutingContext stamped, UnitLookup lookup) {
        if (lookup.outcome() != UnitLookup.Outcome.UNIT) {
            return stamped;
        }
        RoutingContext keyed = stamped.withUnit(lookup.unit().id());
        return keyed.region() == null ? keyed.withRegion(lookup.region().id()) : keyed;
    }

    /**
     * An HTTP request's context, as {@link #read}, the problem it is refused with, and how it reached this region, all
     * from the core's one decision ({@link RoutingDecision}, taken once, so a throttled write takes one token): 400
     * {@code ambiguous-routing-key} when its key is given twice or two sources disagree (the gateway's answer: the
     * handler might read the other value), 400 {@code unroutable-key} for a write whose key names no unit (it has no
     * home to be guarded, claimed or replicated from), or the fence's answer to its write. A decision that refuses for any other
     * reason (a read-only or unhealthy region by this state) does not refuse here: the request is here already.
     */
    Accepted accept(RequestView request, RoutingSnapshot snapshot, String method, String path) {
        RoutingContext stamped = headers.read(request::header);
        UnitLookup lookup = snapshot.rules().lookup(request);
        Verdict verdict = decision.decide(snapshot.state(), method, path, request, null, stamped.unit(),
                                          clock.millis());
        if (lookup.outcome() == UnitLookup.Outcome.AMBIGUOUS_KEY) {
            return new Accepted(stamped, ((Verdict.Refuse) verdict).problem(), NONE);
        }
        if (verdict instanceof Verdict.Refuse r && r.type() == ProblemType.UNROUTABLE_KEY
            && snapshot.fences().writes().isWrite(method, path)) {
            return new Accepted(stamped, r.problem(), NONE); // a write with no home: nothing could guard it
        }
        RoutingContext context = served(keyed(stamped, lookup));
        ProblemDetail refusal = null;
        if (fence && verdict instanceof Verdict.Refuse r) {
            if (r.type() == ProblemType.WRITE_FENCED) {
                refusal = r.problem();
            } else { // refused before the fence was asked: ask it alone
                Verdict.Refuse fenced = RoutingDecision.fence(snapshot.state(), r.unit(), r.home(), null, null,
                                                              method, path);
                refusal = fenced == null ? null : fenced.problem();
            }
        }
        return new Accepted(context, refusal, route(verdict));
    }

    /**
     * How a request reached this region, for the {@code unitas.route} tag: the decision's reason ({@code home},
     * {@code failover}, {@code spillover}, ...) when it picks this region, {@code off_route} when it picks another (a
     * call that bypassed the gateway, or state not yet seen here), {@code none} without a unit the rules know.
     */
    private String route(Verdict verdict) {
        if (verdict.unit() == null) {
            return NONE;
        }
        return verdict.target() != null && verdict.route() != null && verdict.target().id().equals(region)
               ? verdict.route() : OFF_ROUTE;
    }

    /**
     * A request's routing context, the problem it is refused with ({@code null} when it passes), and its
     * {@code unitas.route} tag.
     */
    record Accepted(RoutingContext context, ProblemDetail refusal, String route) {}

    UnitasRoutingState state() {
        return state;
    }

    /** The RFC 9457 body of {@code problem}. */
    static byte[] body(ProblemDetail problem) {
        return ProblemJson.encode(problem);
    }
}
