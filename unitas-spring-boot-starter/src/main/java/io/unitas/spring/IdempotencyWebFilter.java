package io.unitas.spring;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.unitas.client.RoutingContext;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.data.DataProblem;
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
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Per WebFlux write to an {@link Idempotent} method or a configured path: what {@link IdempotencyFilter} does for a
 * Servlet, on a reactive chain. The request body is read once for the fingerprint and served again to the handler;
 * the handler's response is held until the data layer has stored it. The data layer's {@link Idempotency} blocks on
 * its store, so it runs on Reactor's bounded elastic scheduler, never on an event-loop thread. Runs after
 * {@link RoutingContextWebFilter}, which leaves the request's context in an exchange attribute.
 */
final class IdempotencyWebFilter implements WebFilter, Ordered {

    private static final AntPathMatcher PATHS = new AntPathMatcher();

    private final Idempotency idempotency;
    private final String header;
    private final List<String> paths;
    private final ObjectProvider<RequestMappingHandlerMapping> mappings;
    private final Map<HandlerMethod, Boolean> annotated = new ConcurrentHashMap<>();

    IdempotencyWebFilter(Idempotency idempotency, String header, List<String> paths,
                         ObjectProvider<RequestMappingHandlerMapping> mappings) {
        this.idempotency = idempotency;
        this.header = header;
        this.paths = List.copyOf(paths);
        this.mappings = mappings;
    }

    @Override
    public int getOrder() {
        return RoutingContextWebFilter.ORDER + 1;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        String key = request.getHeaders().getFirst(header);
        String method = request.getMethod().name();
        if (key == null || key.isBlank() || "GET".equals(method) || "HEAD".equals(method)
            || "OPTIONS".equals(method)) {
            return chain.filter(exchange);
        }
        return idempotent(exchange).flatMap(yes -> yes ? run(exchange, chain, key) : chain.filter(exchange));
    }

    private Mono<Void> run(ServerWebExchange exchange, WebFilterChain chain, String key) {
        RoutingContext context = exchange.getAttribute(RoutingContextFilter.ATTRIBUTE);
        if (context == null || context.unit() == null) {
            return send(exchange.getResponse(), new DataProblem(DataProblem.Type.NO_UNIT, "an idempotent request"
                    + " needs a unit (a stamp or a routing key) whose home keeps its " + header, Duration.ZERO)
                    .toProblemDetail());
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
                    key, context.unit(), fingerprint, () -> {
                        // on a bounded elastic thread: waiting for the handler here blocks no event loop
                        chain.filter(replayable).contextWrite(reactorContext).block();
                        HttpStatusCode status = held.getStatusCode();
                        return new StoredResponse(status == null ? 200 : status.value(),
                                                  new String(held.body, StandardCharsets.UTF_8));
                    })).subscribeOn(Schedulers.boundedElastic()))
                       .flatMap(result -> answer(exchange.getResponse(), held, result));
        });
    }

    private static Mono<Void> answer(ServerHttpResponse response, Held held, IdempotencyResult result) {
        return switch (result.outcome()) {
            case EXECUTED -> response.writeWith(Mono.just(response.bufferFactory().wrap(held.body)));
            case REPLAYED -> {
                response.setStatusCode(HttpStatusCode.valueOf(result.response().status()));
                response.getHeaders().set("Idempotent-Replayed", "true");
                yield response.writeWith(Mono.just(response.bufferFactory().wrap(
                        result.response().body().getBytes(StandardCharsets.UTF_8))));
            }
            case REJECTED -> send(response, result.problem().toProblemDetail());
        };
    }

    private Mono<Boolean> idempotent(ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        for (String pattern : paths) {
            if (PATHS.match(pattern, path)) {
                return Mono.just(true);
            }
        }
        return Flux.fromStream(mappings.orderedStream())
                   .concatMap(mapping -> mapping.getHandler(exchange))
                   .next()
                   .map(handler -> handler instanceof HandlerMethod m
                                   && annotated.computeIfAbsent(m, h -> h.hasMethodAnnotation(Idempotent.class)))
                   .onErrorReturn(false)
                   .defaultIfEmpty(false);
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
