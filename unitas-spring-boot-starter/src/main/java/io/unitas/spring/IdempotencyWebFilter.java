package io.unitas.spring;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.store.StoredResponse;
import org.reactivestreams.Publisher;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Per WebFlux write to an {@link Idempotent} method or a configured path: what {@link IdempotencyFilter} does for a
 * Servlet (the owner is the request's routing key value, or the path variable the annotation names), on a reactive
 * chain. The request body is read once for the fingerprint and served again to the handler;
 * the handler's response is held until the data layer has stored it. The data layer's {@link Idempotency} blocks on
 * its store, so it runs on Reactor's bounded elastic scheduler, never on an event-loop thread. Runs after
 * {@link RoutingContextWebFilter}, which leaves the request's context in an exchange attribute.
 */
final class IdempotencyWebFilter implements WebFilter, Ordered {

    private static final AntPathMatcher PATHS = new AntPathMatcher();

    private final Idempotency idempotency;
    private final UnitasProperties.Idempotency settings;
    private final UnitasRoutingState state;
    private final ObjectProvider<RequestMappingHandlerMapping> mappings;
    private final Map<HandlerMethod, Optional<IdempotentEndpoint>> endpoints = new ConcurrentHashMap<>();

    IdempotencyWebFilter(Idempotency idempotency, UnitasProperties.Idempotency settings, UnitasRoutingState state,
                         ObjectProvider<RequestMappingHandlerMapping> mappings) {
        this.idempotency = idempotency;
        this.settings = settings;
        this.state = state;
        this.mappings = mappings;
    }

    @Override
    public int getOrder() {
        return WriteGuardWebFilter.ORDER + 1;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String method = request.getMethod().name();
        if (idempotency == null || "GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method)) {
            return chain.filter(exchange);
        }
        return endpoint(exchange).flatMap(found -> {
            IdempotentEndpoint endpoint = found.orElse(null);
            String key = endpoint == null ? null : request.getHeaders().getFirst(endpoint.header());
            return key == null || key.isBlank() ? chain.filter(exchange) : run(exchange, chain, endpoint, key);
        });
    }

    private Mono<Void> run(ServerWebExchange exchange, WebFilterChain chain, IdempotentEndpoint endpoint,
                           String key) {
        RoutingContextWebFilter.View view = new RoutingContextWebFilter.View(exchange.getRequest());
        String owner = endpoint.ownerVariable() == null
                       ? IdempotencyConfiguration.routingKey(state, view)
                       : endpoint.owner(exchange.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE));
        if (owner == null || owner.isBlank()) {
            return send(exchange.getResponse(), IdempotencyConfiguration.noOwner(endpoint, state).toProblemDetail());
        }
        ServerHttpRequest request = exchange.getRequest();
        return DataBufferUtils.join(request.getBody()).map(buffer -> {
            byte[] bytes = new byte[buffer.readableByteCount()];
            buffer.read(bytes);
            DataBufferUtils.release(buffer);
            return bytes;
        }).defaultIfEmpty(new byte[0]).flatMap(body -> {
            String query = request.getURI().getRawQuery() == null ? "" : request.getURI().getRawQuery();
            String fingerprint = Idempotency.fingerprint(request.getMethod().name(), request.getPath().value(), query,
                                                         new String(body, StandardCharsets.UTF_8));
            Held held = new Held(exchange.getResponse());
            ServerWebExchange replayable = exchange.mutate().request(new Replayed(request, body)).response(held)
                                                   .build();
            return Mono.deferContextual(reactorContext -> Mono.fromCallable(() -> idempotency.execute(
                    key, owner, fingerprint, endpoint.ttl(), () -> {
                        // on a bounded elastic thread: waiting for the handler here blocks no event loop
                        chain.filter(replayable).contextWrite(reactorContext).block();
                        HttpStatusCode status = held.getStatusCode();
                        Map<String, String> kept = new LinkedHashMap<>();
                        for (String name : settings.getReplayedHeaders()) {
                            String value = held.getHeaders().getFirst(name);
                            if (value != null) {
                                kept.put(name, value);
                            }
                        }
                        MediaType type = held.getHeaders().getContentType();
                        return new StoredResponse(status == null ? 200 : status.value(),
                                                  new String(held.body, StandardCharsets.UTF_8),
                                                  type == null ? "" : type.toString(), kept);
                    })).subscribeOn(Schedulers.boundedElastic()))
                       .flatMap(result -> answer(exchange.getResponse(), held, result));
        });
    }

    private static Mono<Void> answer(ServerHttpResponse response, Held held, IdempotencyResult result) {
        return switch (result.outcome()) {
            case EXECUTED -> response.writeWith(Mono.just(response.bufferFactory().wrap(held.body)));
            case REPLAYED -> {
                StoredResponse stored = result.response();
                response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
                if (!stored.contentType().isEmpty()) {
                    response.getHeaders().set(HttpHeaders.CONTENT_TYPE, stored.contentType());
                }
                stored.headers().forEach(response.getHeaders()::set);
                response.getHeaders().set("Idempotent-Replayed", "true");
                yield response.writeWith(Mono.just(response.bufferFactory().wrap(
                        result.response().body().getBytes(StandardCharsets.UTF_8))));
            }
            case REJECTED -> send(response, result.problem().toProblemDetail());
        };
    }

    /** The endpoint's settings when this request is an idempotent write, else empty. */
    private Mono<Optional<IdempotentEndpoint>> endpoint(ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        Optional<IdempotentEndpoint> byPath = Optional.empty();
        for (String pattern : settings.getPaths()) {
            if (PATHS.match(pattern, path)) {
                byPath = Optional.of(IdempotentEndpoint.defaults(settings));
                break;
            }
        }
        Optional<IdempotentEndpoint> fallback = byPath;
        // the handler mapping's match also leaves the path variables in the exchange, for an owner variable
        return Flux.fromStream(mappings.orderedStream())
                   .concatMap(mapping -> mapping.getHandler(exchange))
                   .next()
                   .map(handler -> handler instanceof HandlerMethod m
                                   ? endpoints.computeIfAbsent(m, h -> IdempotencyConfiguration.endpoint(h, null,
                                                                                                          settings))
                                   : Optional.<IdempotentEndpoint>empty())
                   .map(annotated -> annotated.isPresent() ? annotated : fallback)
                   .onErrorReturn(fallback)
                   .defaultIfEmpty(fallback);
    }

    private static Mono<Void> send(ServerHttpResponse response, ProblemDetail problem) {
        response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
        response.getHeaders().setContentType(MediaType.parseMediaType(ProblemJson.MEDIA_TYPE));
        if (problem.retryAfterSeconds() > 0) {
            response.getHeaders().set("Retry-After", Long.toString(problem.retryAfterSeconds()));
        }
        return response.writeWith(Mono.just(response.bufferFactory().wrap(ProblemJson.encode(problem))));
    }

    /** The request with its body, read once for the fingerprint, served again to the handler. */
    private static final class Replayed extends ServerHttpRequestDecorator {
        private final byte[] body;

        Replayed(ServerHttpRequest delegate, byte[] body) {
            super(delegate);
            this.body = body;
        }

        @Override
        public Flux<DataBuffer> getBody() {
            return Flux.defer(() -> Flux.just(bufferFactory().wrap(body)));
        }

        private static DataBufferFactory bufferFactory() {
            return DefaultDataBufferFactory.sharedInstance;
        }
    }

    /**
     * The response with its body held back: status and headers go to the real response as the handler sets them,
     * the body is kept until the data layer has stored it (and then written, or not at all when another outcome
     * wins).
     */
    private static final class Held extends ServerHttpResponseDecorator {
        private volatile byte[] body = new byte[0];

        Held(ServerHttpResponse delegate) {
            super(delegate);
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> chunks) {
            return DataBufferUtils.join(Flux.from(chunks)).doOnNext(buffer -> {
                byte[] bytes = new byte[buffer.readableByteCount()];
                buffer.read(bytes);
                DataBufferUtils.release(buffer);
                body = bytes;
            }).then();
        }

        @Override
        public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> chunks) {
            return writeWith(Flux.from(chunks).flatMapSequential(Flux::from));
        }

        @Override
        public Mono<Void> setComplete() {
            return Mono.empty();
        }
    }
}
