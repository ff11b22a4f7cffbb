package io.unitas.core.endpoint;

/**
 * The health of one endpoint at a moment: its state, how many probes failed in a row and since when (on the
 * caller's nanosecond ticker) it has been in this state. Immutable; {@link EndpointHealthPolicy} computes the next.
 *
 * @param state the current state
 * @param consecutiveFailures failures since the last success
 * @param sinceNanos the ticker's value when {@code state} was entered
 */
public record EndpointHealth(EndpointState state, int consecutiveFailures, long sinceNanos) {

    /** Validates the state. */
    public EndpointHealth {
        if (state == null) {
            throw new IllegalArgumentException("state: null (expected: one of HEALTHY, DEGRADED, UNHEALTHY, EVICTED)");
        }
        if (consecutiveFailures < 0) {
            throw new IllegalArgumentException("consecutiveFailures: " + consecutiveFailures + " (expected: >= 0)");
        }
    }

    /** A new endpoint: healthy until a probe says otherwise (DNS just named it). */
    public static EndpointHealth initial(long nowNanos) {
        return new EndpointHealth(EndpointState.HEALTHY, 0, nowNanos);
    }
}
