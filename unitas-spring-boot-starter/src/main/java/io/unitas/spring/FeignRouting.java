package io.unitas.spring;

import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;

/** Writes the routing context on every OpenFeign call. */
final class FeignRouting {

    private FeignRouting() {}

    /** The interceptor for OpenFeign clients; a replaced header is set once, not appended to. */
    static feign.RequestInterceptor feignInterceptor(RoutingHeaders headers) {
        return template -> headers.write(RoutingContextHolder.current(), (name, value) -> {
            template.removeHeader(name);
            template.header(name, value);
        });
    }
}
