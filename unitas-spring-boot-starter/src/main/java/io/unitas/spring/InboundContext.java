package io.unitas.spring;

import java.time.Clock;
import java.util.Objects;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.ReadOnlyPolicy;
import io.unitas.core.RouteDecision;
import io.unitas.core.Router;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.Unit;
import io.unitas.core.rules.UnitLookup;

/**
 * What the Servlet filter and the WebFlux filter both do with an inbound request: read the gateway's stamp, place a
 * request that has none by its routing key (the gateway's rules: a direct call that bypassed the gateway still has a
 * unit), refuse a request whose routing key is ambiguous, judge its write against the fences and against the route
 * decision (the wrong-region write guard), and stamp it with this region, the one that serves it.
 *
 * <p>One route decision per request, the core's ({@link Router#route} for a read, {@link Router#routeWrite} for a
 * write, as the gateway's dispatcher asks it), gives both the {@code unitas.route} tag and the guard's answer, so the
 * two cannot disagree.
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
    private final UnitasProperties.WriteGuard.Mode guard;
    private final ReadOnlyPolicy onReadOnly;

    InboundContext(RoutingHeaders headers, UnitasRoutingState state, boolean fence, String region, Clock clock,
                   UnitasProperties.WriteGuard guard) {
        this.headers = headers;
        this.state = state;
        this.fence = fence;
        this.region = region;
        this.clock = clock;
        this.guard = guard.getMode();
        this.onReadOnly = guard.getOnReadOnly();
    }

    /**
     * The context of a call that is served here whatever it is (gRPC, which has no guard): its stamp, with the unit its
     * key names when it carries a key, and this region as the region that serves it.
     */
    RoutingContext read(RequestView request, RoutingSnapshot snapshot) {
        return served(headers.read(request::header), snapshot.rules().lookup(request));
    }

    /**
     * The context of a request served here: the key's unit wins over a stamped unit, as at the gateway (a unit header
     * alone can be made up; the key is the user's), and the region is this one, so that the calls it makes say where
     * its work was done (a direct call to eu for a us user is served in eu, whatever the stamp said). A request that
     * names neither unit nor region stays unstamped. Allocates one context at most.
     */
    private RoutingContext served(RoutingContext stamped, UnitLookup lookup) {
        String unit = lookup.outcome() == UnitLookup.Outcome.UNIT ? lookup.unit().id() : stamped.unit();
        if (unit == null && stamped.region() == null
            || region.equals(stamped.region()) && Objects.equals(unit, stamped.unit())) {
            return stamped;
        }
        return new RoutingContext(unit, region, stamped.origin(), stamped.hops(), stamped.version());
    }

    /**
     * An HTTP request's context, as {@link #read}, its {@code unitas.route} tag, and the problem it is refused with:
     * 400 {@code ambiguous-routing-key} when its key is given twice or two sources disagree (the gateway's answer: the
     * handler might read the other value), the fence's answer to its write, or 421 {@code not-home-region} for a write
     * the route decision serves in another region (unless {@code unitas.write-guard.mode} is {@code allow}).
     */
    Accepted accept(RequestView request, RoutingSnapshot snapshot, String method, String path) {
        RoutingContext stamped = headers.read(request::header);
        UnitLookup lookup = snapshot.rules().lookup(request);
        if (lookup.outcome() == UnitLookup.Outcome.AMBIGUOUS_KEY) {
            return new Accepted(stamped, NONE, ProblemDetail.of(400, "ambiguous-routing-key", lookup.message()));
        }
        RoutingContext context = served(stamped, lookup);
        Unit unit = context.unit() == null ? null : snapshot.rules().unit(context.unit());
        if (unit == null) {
            return new Accepted(context, NONE, fence ? snapshot.fenced(context.unit(), method, path) : null);
        }
        boolean write = snapshot.fences().writes().isWrite(method, path);
        long now = clock.millis();
        RouteDecision decision = write
                ? snapshot.router().routeWrite(unit.home().id(), snapshot.health(), now, onReadOnly)
                : snapshot.router().route(unit.home().id(), snapshot.health(), now);
        // Without a target (no region admitted, as a stale health view may say), the raw home is where writes belong.
        String serving = decision.target() != null ? decision.target().id() : unit.home().id();
        boolean here = region.equals(serving);
        ProblemDetail refusal = fence ? snapshot.fenced(unit.id(), method, path) : null;
        if (refusal == null && write && !here && guard == UnitasProperties.WriteGuard.Mode.REFUSE) {
            refusal = ProblemDetail.of(421, "not-home-region", "writes of unit " + unit.id() + " are served in "
                                       + serving + ", not in " + region + " (" + decision.message() + ")");
        }
        return new Accepted(context, here ? decision.outcome().reason() : OFF_ROUTE, refusal);
    }

    /**
     * A request's routing context, how it reached this region for the {@code unitas.route} tag, and the problem it is
     * refused with, or {@code null} when it passes.
     *
     * @param route the core's route outcome for its unit ({@code home}, {@code failover}, {@code write_failover},
     *              ...) when that decision picks this region, {@code off_route} when it picks another (a call that
     *              bypassed the gateway, or state not yet seen here), {@code none} without a unit the rules know
     */
    record Accepted(RoutingContext context, String route, ProblemDetail refusal) {}

    UnitasRoutingState state() {
        return state;
    }

    /** The RFC 9457 body of {@code problem}. */
    static byte[] body(ProblemDetail problem) {
        return ProblemJson.encode(problem);
    }
}
