package io.unitas.core.routing;

import java.time.Duration;
import java.util.Objects;

import io.unitas.core.ProblemDetail;
import io.unitas.core.ProblemType;
import io.unitas.core.Region;

/**
 * What the {@link RoutingDecision} says about one request: {@link Forward forward} it to a region, or
 * {@link Refuse refuse} it with a problem of the {@link ProblemType} catalog. Both carry the request's labels (its
 * unit, the unit's home, the region and the route reason), each {@code null} where the decision could not tell.
 */
public sealed interface Verdict permits Verdict.Forward, Verdict.Refuse {

    /** The request's unit id, or {@code null}: no key, the center, or a key naming no unit. */
    String unit();

    /** The unit's home region (the center's region for the center), or {@code null}. */
    Region home();

    /** The region that serves the request, or (refused) the region the refusal concerns; {@code null}: none. */
    Region target();

    /** The route decision's reason ({@code home}, {@code failover}, {@code spillover}, …, {@code prerouted}). */
    String route();

    /**
     * The request goes to {@code target}. A decision hands out the same value again for the same fields, so
     * forwarding allocates nothing.
     *
     * @param version the gray version picking the target's endpoints, or {@code null} for the default ones
     */
    record Forward(String unit, Region home, Region target, String route, String version) implements Verdict {

        /** Requires a target and a reason. */
        public Forward {
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(route, "route");
        }
    }

    /**
     * The request is answered with a problem of {@code type}.
     *
     * @param detail     this occurrence, naming the unit, region or key involved
     * @param retryAfter how long the client should wait; {@link Duration#ZERO} when retrying cannot help
     */
    record Refuse(String unit, Region home, Region target, String route, ProblemType type, String detail,
                  Duration retryAfter) implements Verdict {

        /** Requires the type, detail and wait. */
        public Refuse {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(detail, "detail");
            Objects.requireNonNull(retryAfter, "retryAfter");
        }

        /** The answer's RFC 9457 body. */
        public ProblemDetail problem() {
            return type.problem(detail, retryAfter);
        }
    }
}
