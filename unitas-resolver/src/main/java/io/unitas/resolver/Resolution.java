package io.unitas.resolver;

import java.util.List;

/**
 * A service's endpoints at one moment and where they came from.
 *
 * @param service the service asked for
 * @param endpoints its endpoints, in the order of the answer
 * @param source DNS, a stale DNS answer, or the fallback pool
 */
public record Resolution(ServiceName service, List<ResolvedEndpoint> endpoints, Source source) {

    /** Copies the endpoints. */
    public Resolution {
        endpoints = List.copyOf(endpoints);
    }
}
