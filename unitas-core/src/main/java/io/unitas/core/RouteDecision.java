package io.unitas.core;

/**
 * The outcome of routing one request: where it goes and why, or why it cannot go anywhere. A value the
 * caller branches on ({@link #outcome()}), never an exception.
 */
public final class RouteDecision {

    /** Why a request goes where it goes. */
    public enum Outcome {
        /** The home region is healthy and serves. */
        HOME("home"),
        /** The home region is not healthy; the first healthy region of its fallback list serves. */
        FAILOVER("failover"),
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
            return this == HOME || this == FAILOVER;
        }
    }

    private final Outcome outcome;
    private final String home;
    private final Region target;
    private final String message;

    RouteDecision(Outcome outcome, String home, Region target) {
        this.outcome = outcome;
        this.home = home;
        this.target = target;
        this.message = switch (outcome) {
            case HOME -> "home region " + home + " is healthy";
            case FAILOVER -> "home region " + home + " is unhealthy; failing over to " + target;
            case NO_HEALTHY_REGION -> "no healthy region for home region " + home;
            case UNKNOWN_REGION -> "unknown region '" + home + "'";
        };
    }

    /** Why the request goes where it goes. */
    public Outcome outcome() {
        return outcome;
    }

    /** The home region's id as asked for (it may name no region of the topology). */
    public String home() {
        return home;
    }

    /** The serving region, or {@code null} when {@link #hasTarget()} is false. */
    public Region target() {
        return target;
    }

    /** Whether there is a serving region. */
    public boolean hasTarget() {
        return target != null;
    }

    /** One line for a person, naming the regions involved. */
    public String message() {
        return message;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RouteDecision d && outcome == d.outcome && home.equals(d.home)
               && java.util.Objects.equals(target, d.target);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(outcome, home, target);
    }

    @Override
    public String toString() {
        return message;
    }
}
