package io.unitas.core.capacity;

import java.util.Objects;

import io.unitas.core.Region;
import io.unitas.core.RouteDecision;

/**
 * Where one user is served under a capacity-aware placement, and why: the outcomes of the route decision plus
 * {@link RouteDecision.Outcome#SPILLOVER} and {@link RouteDecision.Outcome#OVERFLOW}.
 *
 * @param userId  the user's id
 * @param home    the id of the user's home region as given
 * @param target  the serving region, or {@code null} when the outcome has none
 * @param outcome why the user is served there
 */
public record Placement(String userId, String home, Region target, RouteDecision.Outcome outcome) {

    /** Checks that a target is present exactly when the outcome has one. */
    public Placement {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(home, "home");
        Objects.requireNonNull(outcome, "outcome");
        if (outcome.hasTarget() != (target != null)) {
            throw new IllegalArgumentException("target: " + target + " (expected: "
                    + (outcome.hasTarget() ? "a region" : "none") + " for outcome " + outcome.reason() + ")");
        }
    }
}
