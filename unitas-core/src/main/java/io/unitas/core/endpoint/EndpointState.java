package io.unitas.core.endpoint;

/**
 * Where one endpoint stands, as a client sees it through its probes and calls. Pickers prefer the lowest
 * {@link #tier()}: an unhealthy endpoint is chosen only when no healthy or degraded one is left, an evicted one
 * only when nothing else is.
 */
public enum EndpointState {
    /** Answering; the last probe succeeded. */
    HEALTHY(0),
    /** Failing, but fewer times in a row than the unhealthy threshold; still served. */
    DEGRADED(0),
    /** Failed the threshold of times in a row; served only when nothing better is left. */
    UNHEALTHY(1),
    /** Unhealthy for the eviction delay without recovering; out of the pool until a probe succeeds. */
    EVICTED(2);

    private final int tier;

    EndpointState(int tier) {
        this.tier = tier;
    }

    /** The preference class: 0 (served), 1 (last resort), 2 (only when nothing else exists). */
    public int tier() {
        return tier;
    }
}
