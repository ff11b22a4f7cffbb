package io.unitas.spring;

import java.net.InetSocketAddress;
import java.util.List;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextAccessor;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.core.rules.KeySource;
import io.unitas.core.rules.RequestView;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpCookie;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Per WebFlux request: reads the routing context, refuses an ambiguous routing key and a write of a fenced unit with
 * the gateway's problems, and
 * puts the context in the Reactor context under {@link RoutingContextAccessor#KEY}, from where context-propagation
 * restores it as the current context in handlers and operators. Nothing is left on any thread.
 */
final class RoutingContextWebFilter implements WebFilter, Ordered {

    /** Early, as the Servlet filter's registration: every filter after it sees the context. */
    static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    private final InboundContext inbound;

    RoutingContextWebFilter(InboundContext inbound) {
        this.inbound = inbound;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        RoutingSnapshot snapshot = inbound.state().current();
        InboundContext.Accepted accepted = inbound.accept(new View(request), snapshot, request.getMethod().name(),
                                                          request.getPath().value());
        RoutingContext context = accepted.context();
        ProblemDetail fenced = accepted.refusal();
        if (fenced != null) {
            ServerHttpResponse response = exchange.getResponse();
            response.setStatusCode(HttpStatusCode.valueOf(fenced.status()));
            response.getHeaders().setContentType(MediaType.parseMediaType(ProblemJson.MEDIA_TYPE));
            if (fenced.retryAfterSeconds() > 0) {
                response.getHeaders().set("Retry-After", Long.toString(fenced.retryAfterSeconds()));
            }
            DataBuffer body = response.bufferFactory().wrap(InboundContext.body(fenced));
            return response.writeWith(Mono.just(body));
        }
        exchange.getAttributes().put(RoutingContextFilter.ATTRIBUTE, context);
        exchange.getAttributes().put(InboundContext.ROUTE_ATTRIBUTE, accepted.route());
        return chain.filter(exchange).contextWrite(c -> c.put(RoutingContextAccessor.KEY, context));
    }

    /** The unit rules' view of a reactive request. */
    record View(ServerHttpRequest request) implements RequestView {
        @Override
        public String header(String name) {
            return request.getHeaders().getFirst(name);
        }

        @Override
        public String cookie(String name) {
            List<HttpCookie> cookies = request.getCookies().get(name);
            return cookies == null || cookies.isEmpty() ? null : cookies.get(0).getValue();
        }

        @Override
        public String query(String name) {
            return request.getQueryParams().getFirst(name);
        }

        @Override
        public String path() {
            return request.getPath().value();
        }

        @Override
        public boolean repeated(KeySource source) {
            List<?> values = switch (source.kind()) {
                // getValuesAsList, not get: HttpHeaders is no Map from Spring 7 on, where get(Object) is gone
                case HEADER -> request.getHeaders().getValuesAsList(source.name());
                case COOKIE -> request.getCookies().get(source.name());
                case QUERY -> request.getQueryParams().get(source.name());
                case PATH, DOMAIN_PREFIX, STRATEGY -> null;
            };
            return values != null && values.size() > 1;
        }

        @Override
        public String host() {
            String host = request.getHeaders().getFirst("Host");
            InetSocketAddress address = request.getHeaders().getHost();
            return host != null ? host : address == null ? null : address.getHostString();
        }
    }
}
