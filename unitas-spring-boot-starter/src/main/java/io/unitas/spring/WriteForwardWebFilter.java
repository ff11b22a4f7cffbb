package io.unitas.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.unitas.client.RoutingContext;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The WebFlux write guard in {@code forward} mode, where {@link WriteGuardWebFilter} stands otherwise: a write of a
 * unit this region does not take now is sent on to the region that does ({@link WriteForwarder}) and its answer
 * relayed, without blocking; one that cannot be is refused with 421 {@code not-home-region}.
 */
final class WriteForwardWebFilter implements WebFilter, Ordered {

    private final WriteGuardDecision guard;
    private final UnitasRoutingState state;
    private final WriteForwarder forwarder;

    WriteForwardWebFilter(WriteGuardDecision guard, UnitasRoutingState state, WriteForwarder forwarder) {
        this.guard = guard;
        this.state = state;
        this.forwarder = forwarder;
    }

    @Override
    public int getOrder() {
        return WriteGuardWebFilter.ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        Object attribute = exchange.getAttribute(RoutingContextFilter.ATTRIBUTE);
        if (!(attribute instanceof RoutingContext context)) {
            return chain.filter(exchange);
        }
        WriteGuardDecision.Refusal refused = guard.refused(context, state.current(), request.getMethod().name(),
                                                           request.getPath().value());
        if (refused == null) {
            return chain.filter(exchange);
        }
        String forwardedBy = request.getHeaders().getFirst(WriteForwarder.FORWARDED_BY);
        if (forwardedBy != null || forwarder.target(refused.target()) == null) {
            ProblemDetail problem = forwardedBy == null ? refused.problem()
                                                        : WriteForwarder.refusedAgain(refused.problem(), forwardedBy);
            return write(exchange.getResponse(), new WriteForwarder.Answer(
                    problem.status(), Map.of("Content-Type", List.of(ProblemJson.MEDIA_TYPE)),
                    ProblemJson.encode(problem)));
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        request.getHeaders().forEach((name, values) -> values.forEach(v -> headers.add(Map.entry(name, v))));
        String query = request.getURI().getRawQuery();
        String pathAndQuery = request.getPath().value() + (query == null ? "" : "?" + query);
        return DataBufferUtils.join(request.getBody())
                .map(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return bytes;
                })
                .defaultIfEmpty(new byte[0])
                .flatMap(body -> Mono.fromFuture(forwarder.forward(refused.target(), context.unit(),
                                                                   request.getMethod().name(), pathAndQuery, headers,
                                                                   body, context)))
                .flatMap(answer -> write(exchange.getResponse(), answer));
    }

    private static Mono<Void> write(ServerHttpResponse response, WriteForwarder.Answer answer) {
        response.setStatusCode(HttpStatusCode.valueOf(answer.status()));
        answer.headers().forEach((name, values) -> response.getHeaders().put(name, values));
        response.getHeaders().setContentLength(answer.body().length);
        DataBuffer body = response.bufferFactory().wrap(answer.body());
        return response.writeWith(Mono.just(body));
    }
}
