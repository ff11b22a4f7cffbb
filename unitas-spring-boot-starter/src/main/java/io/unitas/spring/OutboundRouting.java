package io.unitas.spring;

import java.io.IOException;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextAccessor;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import reactor.core.publisher.Mono;

/**
 * Writes the current routing context on every outgoing call: an interceptor for {@code RestClient} and
 * {@code RestTemplate}, one for OpenFeign, and an exchange filter for {@code WebClient} that reads the Reactor context first (a reactive
 * chain's context) and the current thread's otherwise (a blocking caller).
 */
final class OutboundRouting {

    private OutboundRouting() {}

    /** The interceptor for {@code RestClient} and {@code RestTemplate}. */
    static ClientHttpRequestInterceptor interceptor(RoutingHeaders headers) {
        return new Interceptor(headers);
    }

    /** The filter for {@code WebClient}; the class is loaded only when WebFlux is on the class path. */
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

    /** The interceptor for OpenFeign clients; the class is loaded only when OpenFeign is on the class path. */
    static feign.RequestInterceptor feignInterceptor(RoutingHeaders headers) {
        return template -> headers.write(RoutingContextHolder.current(), (name, value) -> {
            template.removeHeader(name);
            template.header(name, value);
        });
    }

    /** Sets the headers from the current thread's context. */
    private record Interceptor(RoutingHeaders headers) implements ClientHttpRequestInterceptor {
        @Override
        public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
                throws IOException {
            headers.write(RoutingContextHolder.current(), request.getHeaders()::set);
            return execution.execute(request, body);
        }
    }
}
