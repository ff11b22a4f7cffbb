package io.unitas.resolver;

import java.net.InetSocketAddress;

import io.unitas.core.endpoint.EndpointState;

/**
 * One address a service can be reached at, with what the client knows about it.
 *
 * @param address the address and port
 * @param priority the SRV priority (0 for A/AAAA answers and the pool), lower preferred
 * @param weight the SRV weight (1 for A/AAAA answers and the pool)
 * @param latencyWeight seed 003's weight of the endpoint's RTT over the last 60 s (1 until measured)
 * @param state the endpoint's health as the prober sees it
 */
public record ResolvedEndpoint(InetSocketAddress address, int priority, int weight, int latencyWeight,
                               EndpointState state) {

    /** The weight picks use: the SRV weight times the latency weight (an SRV weight of 0 stays 0, as RFC 2782 means it). */
    public long effectiveWeight() {
        return (long) weight * latencyWeight;
    }
}
