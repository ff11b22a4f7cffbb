package io.unitas.core;

import java.util.Objects;

/**
 * The outcome of routing one request: where it goes and why, or why it cannot go anywhere. A value the
 * caller branches on ({@link #outcome()}), never an exception.
 *
 * @param outcome why the request goes where it goes
 * @param home    the home region's id as asked for (it may name no region of the topology)
 * @param target  the serving region, or {@code null} when the outcome has none
 */
public record RouteDecision(Outcome outcome, String home, Region target) {

    /**
     * Why a request goes where it goes. The {@link Router} gives {@link #HOME}, {@link #FAILOVER},
     * {@link #NO_HEALTHY_REGION} and {@link #UNKNOWN_REGION}; capacity-aware placement
     * ({@code io.unitas.core.capacity}) also gives {@link #SPILLOVER} and {@link #OVERFLOW}.
     */
    public enum Outcome {
        /** The home region is healthy and serves. */
        HOME("home"),
        /** The home region is not healthy; the first healthy region of its fallback list serves. */
        FAILOVER("failover"),
        /** The first healthy region of the fallback list had no room; a later healthy region with room serves. */
        SPILLOVER("spillover"),
        /** No healthy region of the fallback list had room; the first healthy one serves regardless. */
        OVERFLOW("overflow"),
        /** Neither the home nor any region of its fallback list is healthy. */
        NO_HEALTHY_REGION("no_healthy_region"),
        /** The home region is not in the topology. */
        UNKNOWN_REGION("unknown_region");

        private final String reason;

        Outcome(String reason) {
            this.reason = reason;
        }

        /** The lowercase name used in files and metrics ({@code home}, {@code no_healthy_region}). */
        public String reason() {
            return reason;
        }

        /** Whether a decision with this outcome has a target region. */
        public boolean hasTarget() {
            return this != NO_HEALTHY_REGION && this != UNKNOWN_REGION;
        }
    }

    /** Checks that a target is present exactly when the outcome has one. */
    public RouteDecision {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(home, "home");
        if (outcome.hasTarget() != (target != null)) {
            throw new IllegalArgumentException("target: " + target + " (expected: "
                    + (outcome.hasTarget() ? "a region" : "none") + " for outcome " + outcome.reason() + ")");
        }
    }

    /** The home region serves. */
    public static RouteDecision home(Region home) {
        return new RouteDecision(Outcome.HOME, home.id(), home);
    }

    /** The home region is down and {@code target} serves instead. */
    public static RouteDecision failover(Region home, Region target) {
        return new RouteDecision(Outcome.FAILOVER, home.id(), target);
    }

    /** Nothing the home may fail over to is healthy. */
    public static RouteDecision noHealthyRegion(Region home) {
        return new RouteDecision(Outcome.NO_HEALTHY_REGION, home.id(), null);
    }

    /** {@code homeId} names no region of the topology. */
    public static RouteDecision unknownRegion(String homeId) {
        return new RouteDecision(Outcome.UNKNOWN_REGION, homeId, null);
    }

    /** Whether there is a serving region. */
    public boolean hasTarget() {
        return target != null;
    }

    /** One line for a person, naming the regions involved. */
    public String message() {
        return switch (outcome) {
            case HOME -> "home region " + home + " is healthy";
            case FAILOVER -> "home region " + home + " is unhealthy; failing over to " + target;
            case SPILLOVER -> "home region " + home + " is unhealthy; spilling over to " + target;
            case OVERFLOW -> "home region " + home + " is unhealthy; overflowing to " + target
                             + " (no region of its fallback list has room)";
            case NO_HEALTHY_REGION -> "no healthy region for home region " + home;
            case UNKNOWN_REGION -> "unknown region '" + home + "'";
        };
    }

    @Override
    public String toString() {
        return message();
    }
}
