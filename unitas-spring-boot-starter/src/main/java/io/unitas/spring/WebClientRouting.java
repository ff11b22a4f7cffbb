package io.unitas.spring;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextAccessor;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import reactor.core.publisher.Mono;

/**
 * Writes the routing context on every {@code WebClient} call: from the Reactor context first (a reactive chain's),
 * from the calling thread otherwise (a blocking caller).
 */
final class WebClientRouting {

    private WebClientRouting() {}

    /** The filter for {@code WebClient}. */
    static ExchangeFilterFunction exchangeFilter(RoutingHeaders headers) {
        return (request, next) -> Mono.deferContextual(reactorContext -> {
            RoutingContext context = reactorContext.getOrDefault(RoutingContextAccessor.KEY,
                                                                 RoutingContextHolder.current());
            if (context == null || context.isEmpty()) {
                return next.exchange(request);
            }
            ClientRequest.Builder stamped = ClientRequest.from(request);
            stamped.headers(h -> headers.write(context, h::set));
            return next.exchange(stamped.build());
        });
    }
}
