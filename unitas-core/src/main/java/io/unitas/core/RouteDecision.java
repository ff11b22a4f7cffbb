package io.unitas.core;

import java.util.Objects;

/**
 * The outcome of routing one request: where it goes and why, or why it cannot go anywhere. A value the
 * caller branches on ({@link #outcome()}), never an exception.
 *
 * @param outcome why the request goes where it goes
 * @param home    the home region's id as asked for (it may name no region of the topology)
 * @param target  the serving region; for {@link Outcome#READ_ONLY}, the read-only region that refuses the write;
 *                {@code null} when the outcome has none
 */
public record RouteDecision(Outcome outcome, String home, Region target) {

    /**
     * Why a request goes where it goes. The {@link Router} gives {@link #HOME}, {@link #FAILOVER},
     * {@link #NO_HEALTHY_REGION} and {@link #UNKNOWN_REGION}, and for writes {@link #READ_ONLY} and
     * {@link #WRITE_FAILOVER}; capacity-aware placement
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
        /**
         * A write whose serving region is read-only, refused ({@link ReadOnlyPolicy#FENCE}, or no writable region to
         * fail over to); the decision's target names the read-only region, but the request goes nowhere.
         */
        READ_ONLY("read_only"),
        /** A write whose serving region is read-only goes to the next writable region ({@link ReadOnlyPolicy#FAILOVER}). */
        WRITE_FAILOVER("write_failover"),
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
            return this != NO_HEALTHY_REGION && this != UNKNOWN_REGION && this != READ_ONLY;
        }

        /** Whether a decision with this outcome names a region ({@link #READ_ONLY}'s names the one refusing). */
        boolean namesRegion() {
            return hasTarget() || this == READ_ONLY;
        }
    }

    /** Checks that a target is present exactly when the outcome names a region. */
    public RouteDecision {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(home, "home");
        if (outcome.namesRegion() != (target != null)) {
            throw new IllegalArgumentException("target: " + target + " (expected: "
                    + (outcome.namesRegion() ? "a region" : "none") + " for outcome " + outcome.reason() + ")");
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
        return outcome.hasTarget();
    }

    /** One line for a person, naming the regions involved. */
    public String message() {
        return switch (outcome) {
            case HOME -> "home region " + home + " is healthy";
            case FAILOVER -> "home region " + home + " is unhealthy; failing over to " + target;
            case SPILLOVER -> "home region " + home + " is unhealthy; spilling over to " + target;
            case OVERFLOW -> "home region " + home + " is unhealthy; overflowing to " + target
                             + " (no region of its fallback list has room)";
            case READ_ONLY -> "writes for home region " + home + " are refused: " + target + " is read-only";
            case WRITE_FAILOVER -> "writes for home region " + home + " go to " + target
                                   + ": the region serving its reads is read-only";
            case NO_HEALTHY_REGION -> "no healthy region for home region " + home;
            case UNKNOWN_REGION -> "unknown region '" + home + "'";
        };
    }

    @Override
    public String toString() {
        return message();
    }
}
