package io.unitas.core.endpoint;

import java.time.Duration;

/**
 * The endpoint state machine of seed 003 (3.3): the first failure makes an endpoint {@code DEGRADED},
 * {@code failuresToUnhealthy} in a row make it {@code UNHEALTHY}, and {@code evictAfter} spent unhealthy without
 * a success makes it {@code EVICTED}. Any success re-admits it as {@code HEALTHY}. Pure: the caller hands in
 * the time.
 *
 * @param failuresToUnhealthy failures in a row that make an endpoint unhealthy (the seed: 3)
 * @param evictAfter time spent unhealthy after which it is evicted (the seed: 60 s)
 */
public record EndpointHealthPolicy(int failuresToUnhealthy, Duration evictAfter) {

    /** The seed's numbers: unhealthy after 3 failures in a row, evicted after 60 s without recovery. */
    public static final EndpointHealthPolicy DEFAULT = new EndpointHealthPolicy(3, Duration.ofSeconds(60));

    /** Validates the thresholds. */
    public EndpointHealthPolicy {
        if (failuresToUnhealthy < 1) {
            throw new IllegalArgumentException("failuresToUnhealthy: " + failuresToUnhealthy + " (expected: >= 1)");
        }
        if (evictAfter == null || evictAfter.isNegative()) {
            throw new IllegalArgumentException("evictAfter: " + evictAfter + " (expected: >= 0s)");
        }
    }

    /** After a successful probe or call: healthy again, whatever came before. */
    public EndpointHealth onSuccess(EndpointHealth h, long nowNanos) {
        if (h.state() == EndpointState.HEALTHY && h.consecutiveFailures() == 0) {
            return h;
        }
        return new EndpointHealth(EndpointState.HEALTHY, 0, nowNanos);
    }

    /** After a failed probe or call. */
    public EndpointHealth onFailure(EndpointHealth h, long nowNanos) {
        int failures = h.consecutiveFailures() == Integer.MAX_VALUE ? Integer.MAX_VALUE : h.consecutiveFailures() + 1;
        EndpointState next = h.state() == EndpointState.EVICTED ? EndpointState.EVICTED
                : failures >= failuresToUnhealthy ? EndpointState.UNHEALTHY
                : EndpointState.DEGRADED;
        long since = next == h.state() ? h.sinceNanos() : nowNanos;
        return onTime(new EndpointHealth(next, failures, since), nowNanos);
    }

    /** As time passes without news: an endpoint unhealthy for {@code evictAfter} is evicted. */
    public EndpointHealth onTime(EndpointHealth h, long nowNanos) {
        if (h.state() == EndpointState.UNHEALTHY && nowNanos - h.sinceNanos() >= evictAfter.toNanos()) {
            return new EndpointHealth(EndpointState.EVICTED, h.consecutiveFailures(), nowNanos);
        }
        return h;
    }
}
