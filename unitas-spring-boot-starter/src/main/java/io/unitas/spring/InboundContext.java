package io.unitas.spring;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingHeaders;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.rules.RequestView;
import io.unitas.core.rules.UnitLookup;

/**
 * What the Servlet filter and the WebFlux filter both do with an inbound request: read the gateway's stamp, place a
 * request that has none by its routing key (the gateway's rules: a direct call that bypassed the gateway still has a
 * unit), and judge its write against the fences.
 */
final class InboundContext {

    private final RoutingHeaders headers;
    private final UnitasRoutingState state;
    private final boolean fence;

    InboundContext(RoutingHeaders headers, UnitasRoutingState state, boolean fence) {
        this.headers = headers;
        this.state = state;
        this.fence = fence;
    }

    /**
     * The request's context: its stamp, with the unit its key names when it carries a key. The key wins over a
     * stamped unit, as at the gateway (a unit header alone can be made up; the key is the user's).
     */
    RoutingContext read(RequestView request, RoutingSnapshot snapshot) {
        RoutingContext stamped = headers.read(request::header);
        UnitLookup lookup = snapshot.rules().lookup(request);
        if (lookup.outcome() != UnitLookup.Outcome.UNIT) {
            return stamped;
        }
        RoutingContext keyed = stamped.withUnit(lookup.unit().id());
        return keyed.region() == null ? keyed.withRegion(lookup.region().id()) : keyed;
    }

    /** The fence's answer to this request, or {@code null} when it passes (or the fence filter is off). */
    ProblemDetail fenced(RoutingContext context, RoutingSnapshot snapshot, String method, String path) {
        return fence ? snapshot.fenced(context.unit(), method, path) : null;
    }

    UnitasRoutingState state() {
        return state;
    }

    /** The RFC 9457 body of {@code problem}. */
    static byte[] body(ProblemDetail problem) {
        return ProblemJson.encode(problem);
    }
}
