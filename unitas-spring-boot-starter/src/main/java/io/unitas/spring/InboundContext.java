package io.unitas.spring;

import java.time.Clock;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.RouteDecision;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;

/**
 * What the Servlet filter and the WebFlux filter both do with an inbound request: read the gateway's stamp, place a
 * request that has none by its routing key (the gateway's rules: a direct call that bypassed the gateway still has a
 * unit), refuse a request whose routing key is ambiguous, and judge its write against the fences.
 */
final class InboundContext {

    /** The request attribute holding the request's {@link #route}. */
    static final String ROUTE_ATTRIBUTE = InboundContext.class.getName() + ".route";
    static final String NONE = "none";
    static final String OFF_ROUTE = "off_route";

    private final RoutingHeaders headers;
    private final UnitasRoutingState state;
    private final boolean fence;
    private final String region;
    private final Clock clock;

    InboundContext(RoutingHeaders headers, UnitasRoutingState state, boolean fence, String region, Clock clock) {
        this.headers = headers;
        this.state = state;
        this.fence = fence;
        this.region = region;
        this.clock = clock;
    }

    /**
     * How this request reached this region, for the {@code unitas.route} tag: the core's route outcome for its unit
     * ({@code home}, {@code failover}, {@code spillover}, ...) when that decision picks this region, {@code off_route}
     * when it picks another (a call that bypassed the gateway, or state not yet seen here), {@code none} without a
     * unit the rules know.
     */
    String route(RoutingContext context, RoutingSnapshot snapshot) {
        Unit unit = context.unit() == null ? null : snapshot.rules().unit(context.unit());
        if (unit == null) {
            return NONE;
        }
        RouteDecision decision = snapshot.router().route(unit.home().id(), snapshot.health(), clock.millis());
        return decision.hasTarget() && decision.target().id().equals(region) ? decision.outcome().reason()
                                                                              : OFF_ROUTE;
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
     * An HTTP request's context, as {@link #read}, and the problem it is refused with: 400
     * {@code ambiguous-routing-key} when its key is given twice or two sources disagree (the gateway's answer: the
     * handler might read the other value), or the fence's answer to its write.
     */
    Accepted accept(RequestView request, RoutingSnapshot snapshot, String method, String path) {
        RoutingContext stamped = headers.read(request::header);
        UnitLookup lookup = snapshot.rules().lookup(request);
        if (lookup.outcome() == UnitLookup.Outcome.AMBIGUOUS_KEY) {
            return new Accepted(stamped, ProblemDetail.of(400, "ambiguous-routing-key", lookup.message()));
        }
        RoutingContext context = served(keyed(stamped, lookup));
        return new Accepted(context, fence ? snapshot.fenced(context.unit(), method, path) : null);
    }

    /** A request's routing context, and the problem it is refused with, or {@code null} when it passes. */
    record Accepted(RoutingContext context, ProblemDetail refusal) {}

    UnitasRoutingState state() {
        return state;
    }

    /** The RFC 9457 body of {@code problem}. */
    static byte[] body(ProblemDetail problem) {
        return ProblemJson.encode(problem);
    }
}
