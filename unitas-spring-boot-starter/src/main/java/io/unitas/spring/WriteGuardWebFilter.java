package io.unitas.spring;

import io.unitas.client.RoutingContext;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Per WebFlux request, right after the routing context is read and before idempotency and the handler: a write of a
 * unit this region does not take now is refused with 421 {@code not-home-region} ({@link WriteGuardDecision}).
 */
final class WriteGuardWebFilter implements WebFilter, Ordered {

    /** After the routing context's filter, before the idempotency filter. */
    static final int ORDER = RoutingContextWebFilter.ORDER + 1;

    private final WriteGuardDecision guard;
    private final UnitasRoutingState state;

    WriteGuardWebFilter(WriteGuardDecision guard, UnitasRoutingState state) {
        this.guard = guard;
        this.state = state;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        Object context = exchange.getAttribute(RoutingContextFilter.ATTRIBUTE);
        ProblemDetail refused = context instanceof RoutingContext c
                ? guard.refusal(c, state.current(), request.getMethod().name(), request.getPath().value()) : null;
        if (refused == null) {
            return chain.filter(exchange);
        }
        ServerHttpResponse response = exchange.getResponse();
        response.setStatusCode(HttpStatusCode.valueOf(refused.status()));
        response.getHeaders().setContentType(MediaType.parseMediaType(ProblemJson.MEDIA_TYPE));
        DataBuffer body = response.bufferFactory().wrap(ProblemJson.encode(refused));
        return response.writeWith(Mono.just(body));
    }
}
