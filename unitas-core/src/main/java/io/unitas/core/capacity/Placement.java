package io.unitas.core.capacity;

import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.core.RouteDecision;

/**
 * Where one user is served under a capacity-aware placement, and why.
 *
 * @param userId the user's id
 * @param home   the id of the user's home region as given
 * @param target the serving region, or {@code null} when the reason has none
 * @param reason why the user is served there
 */
public record Placement(String userId, String home, Region target, Reason reason) {

    /** Why a user is served where it is. */
    public enum Reason {
        /** The home region is healthy and serves. */
        HOME("home"),
        /** The first healthy region of the home's fallback list serves and has room. */
        FAILOVER("failover"),
        /** The first healthy region had no room; a later healthy region of the fallback list serves. */
        SPILLOVER("spillover"),
        /** No healthy region of the fallback list had room; the first healthy one serves regardless. */
        OVERFLOW("overflow"),
        /** Neither the home nor any region of its fallback list is healthy. */
        NO_HEALTHY_REGION("no_healthy_region"),
        /** The home region is not in the topology. */
        UNKNOWN_REGION("unknown_region");

        private final String reason;

        Reason(String reason) {
            this.reason = reason;
        }

        /** The lowercase name used in files ({@code spillover}), the same as the route outcome's where shared. */
        public String reason() {
            return reason;
        }

        /** Whether a placement with this reason has a target region. */
        public boolean hasTarget() {
            return this != NO_HEALTHY_REGION && this != UNKNOWN_REGION;
        }

        /** The reason that matches a route decision's outcome. */
        public static Reason of(RouteDecision.Outcome outcome) {
            return switch (outcome) {
                case HOME -> HOME;
                case FAILOVER -> FAILOVER;
                case NO_HEALTHY_REGION -> NO_HEALTHY_REGION;
                case UNKNOWN_REGION -> UNKNOWN_REGION;
            };
        }
    }

    /** Checks that a target is present exactly when the reason has one. */
    public Placement {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(reason, "reason");
        if (reason.hasTarget() != (target != null)) {
            throw new IllegalArgumentException("target: " + target + " (expected: "
                    + (reason.hasTarget() ? "a region" : "none") + " for reason " + reason.reason() + ")");
        }
    }
}
