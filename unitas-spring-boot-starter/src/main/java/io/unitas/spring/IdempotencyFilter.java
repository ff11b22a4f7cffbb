package io.unitas.spring;

import java.io.ByteArrayInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.store.StoredResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Per Servlet write to an {@link Idempotent} method or a configured path: runs it through the data layer's
 * {@link Idempotency} with the request's owner (its routing key value, or the path variable the annotation names)
 * as the owner whose home keeps the record, and the method, path, query and body as the request's fingerprint. Runs
 * after {@link RoutingContextFilter}.
 */
final class IdempotencyFilter extends OncePerRequestFilter {

    private static final AntPathMatcher PATHS = new AntPathMatcher();

    private final Idempotency idempotency;
    private final UnitasProperties.Idempotency settings;
    private final UnitasRoutingState state;
    private final ObjectProvider<RequestMappingHandlerMapping> mappings;
    private final Map<HandlerMethod, Optional<IdempotentEndpoint>> endpoints = new ConcurrentHashMap<>();
    private volatile List<RequestMappingHandlerMapping> handlerMappings;

    IdempotencyFilter(Idempotency idempotency, UnitasProperties.Idempotency settings, UnitasRoutingState state,
                      ObjectProvider<RequestMappingHandlerMapping> mappings) {
        this.idempotency = idempotency;
        this.settings = settings;
        this.state = state;
        this.mappings = mappings;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        IdempotentEndpoint endpoint = endpoint(request);
        String key = endpoint == null ? null : request.getHeader(endpoint.header());
        if (key == null || key.isBlank()) {
            chain.doFilter(request, response);
            return;
        }
        String owner = endpoint.ownerVariable() == null
                       ? IdempotencyConfiguration.routingKey(state, new ServletRequestView(request))
                       : endpoint.owner(pathVariables(request));
        if (owner == null || owner.isBlank()) {
            send(response, IdempotencyConfiguration.noOwner(endpoint, state).toProblemDetail());
            return;
        }
        BufferedRequest buffered = new BufferedRequest(request);
        String query = request.getQueryString() == null ? "" : request.getQueryString();
        String fingerprint = Idempotency.fingerprint(request.getMethod(), request.getRequestURI(), query,
                                                     new String(buffered.body, StandardCharsets.UTF_8));
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        IdempotencyResult result;
        try {
            result = idempotency.execute(key, owner, fingerprint, endpoint.ttl(), () -> {
                try {
                    chain.doFilter(buffered, captured);
                } catch (IOException | ServletException e) {
                    throw new Checked(e);
                }
                Map<String, String> kept = new LinkedHashMap<>();
                for (String name : settings.getReplayedHeaders()) {
                    String value = captured.getHeader(name);
                    if (value != null) {
                        kept.put(name, value);
                    }
                }
                return new StoredResponse(captured.getStatus(),
                                          new String(captured.getContentAsByteArray(), StandardCharsets.UTF_8),
                                          captured.getContentType(), kept);
            });
        } catch (Checked e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw (ServletException) e.getCause();
        }
        switch (result.outcome()) {
            case EXECUTED -> captured.copyBodyToResponse();
            case REPLAYED -> {
                StoredResponse stored = result.response();
                response.setStatus(stored.status());
                if (!stored.contentType().isEmpty()) {
                    response.setContentType(stored.contentType());
                }
                stored.headers().forEach(response::setHeader);
                response.setHeader("Idempotent-Replayed", "true");
                response.getOutputStream().write(stored.body().getBytes(StandardCharsets.UTF_8));
            }
            case REJECTED -> send(response, result.problem().toProblemDetail());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> pathVariables(HttpServletRequest request) {
        // set by the handler mapping's match in endpoint(request)
        return (Map<String, String>) request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    }

    /** The endpoint's settings when this request is an idempotent write, else {@code null}. */
    private IdempotentEndpoint endpoint(HttpServletRequest request) {
        String method = request.getMethod();
        if (idempotency == null || "GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method)) {
            return null;
        }
        List<RequestMappingHandlerMapping> all = handlerMappings;
        if (all == null) {
            all = mappings.orderedStream().toList();
            handlerMappings = all;
        }
        IdempotentEndpoint annotated = null;
        for (RequestMappingHandlerMapping mapping : all) {
            HandlerExecutionChain handler;
            try {
                handler = mapping.getHandler(request);
            } catch (Exception e) {
                break; // no handler for it here: the dispatcher answers it as it would without this filter
            }
            if (handler != null) {
                if (handler.getHandler() instanceof HandlerMethod m) {
                    annotated = endpoints.computeIfAbsent(m, h -> IdempotencyConfiguration.endpoint(h, null,
                                                                                                     settings))
                                         .orElse(null);
                }
                break;
            }
        }
        if (annotated != null) {
            return annotated;
        }
        String path = request.getRequestURI().substring(request.getContextPath().length());
        for (String pattern : settings.getPaths()) {
            if (PATHS.match(pattern, path)) {
                return IdempotentEndpoint.defaults(settings);
            }
        }
        return null;
    }

    private static void send(HttpServletResponse response, ProblemDetail problem) throws IOException {
        response.setStatus(problem.status());
        response.setContentType(ProblemJson.MEDIA_TYPE);
        if (problem.retryAfterSeconds() > 0) {
            response.setHeader("Retry-After", Long.toString(problem.retryAfterSeconds()));
        }
        response.getOutputStream().write(ProblemJson.encode(problem));
    }

    /** Carries the chain's checked exception out of the data layer's action, which may throw unchecked only. */
    private static final class Checked extends RuntimeException {
        Checked(Exception cause) {
            super(cause);
        }
    }

    /** The request with its body read once, for the fingerprint, and served again to the handler. */
    private static final class BufferedRequest extends HttpServletRequestWrapper {
        private final byte[] body;

        BufferedRequest(HttpServletRequest request) throws IOException {
            super(request);
            this.body = request.getInputStream().readAllBytes();
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body is already buffered");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public BufferedReader getReader() {
            return new BufferedReader(new InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }
    }
}
