package io.unitas.spring;

import java.io.ByteArrayInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import io.unitas.data.DataProblem;
import io.unitas.data.Idempotency;
import io.unitas.data.IdempotencyResult;
import io.unitas.data.store.StoredResponse;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Per Servlet write to an {@link Idempotent} method or a configured path: runs it through the data layer's
 * {@link Idempotency} with the routing context's unit as the owner whose home keeps the record, and the method, path,
 * query and body as the request's fingerprint. Runs after {@link RoutingContextFilter}, so the context is current.
 */
final class IdempotencyFilter extends OncePerRequestFilter {

    private static final AntPathMatcher PATHS = new AntPathMatcher();

    private final Idempotency idempotency;
    private final String header;
    private final List<String> paths;
    private final ObjectProvider<RequestMappingHandlerMapping> mappings;
    private final Map<HandlerMethod, Boolean> annotated = new ConcurrentHashMap<>();
    private volatile List<RequestMappingHandlerMapping> handlerMappings;

    IdempotencyFilter(Idempotency idempotency, String header, List<String> paths,
                      ObjectProvider<RequestMappingHandlerMapping> mappings) {
        this.idempotency = idempotency;
        this.header = header;
        this.paths = List.copyOf(paths);
        this.mappings = mappings;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String key = request.getHeader(header);
        if (key == null || key.isBlank() || !idempotent(request)) {
            chain.doFilter(request, response);
            return;
        }
        RoutingContext context = RoutingContextHolder.current();
        if (context.unit() == null) {
            send(response, new DataProblem(DataProblem.Type.NO_UNIT, "an idempotent request needs a unit (a stamp"
                    + " or a routing key) whose home keeps its " + header, java.time.Duration.ZERO)
                    .toProblemDetail());
            return;
        }
        BufferedRequest buffered = new BufferedRequest(request);
        String query = request.getQueryString() == null ? "" : request.getQueryString();
        String fingerprint = Idempotency.fingerprint(request.getMethod(), request.getRequestURI(), query,
                                                     new String(buffered.body, StandardCharsets.UTF_8));
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        IdempotencyResult result;
        try {
            result = idempotency.execute(key, context.unit(), fingerprint, () -> {
                try {
                    chain.doFilter(buffered, captured);
                } catch (IOException | ServletException e) {
                    throw new Checked(e);
                }
                return new StoredResponse(captured.getStatus(),
                                          new String(captured.getContentAsByteArray(), StandardCharsets.UTF_8));
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
                response.setStatus(result.response().status());
                response.setHeader("Idempotent-Replayed", "true");
                response.getOutputStream().write(result.response().body().getBytes(StandardCharsets.UTF_8));
            }
            case REJECTED -> send(response, result.problem().toProblemDetail());
        }
    }

    private boolean idempotent(HttpServletRequest request) {
        String method = request.getMethod();
        if ("GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method)) {
            return false;
        }
        String path = request.getRequestURI().substring(request.getContextPath().length());
        for (String pattern : paths) {
            if (PATHS.match(pattern, path)) {
                return true;
            }
        }
        List<RequestMappingHandlerMapping> all = handlerMappings;
        if (all == null) {
            all = mappings.orderedStream().toList();
            handlerMappings = all;
        }
        for (RequestMappingHandlerMapping mapping : all) {
            try {
                HandlerExecutionChain handler = mapping.getHandler(request);
                if (handler != null) {
                    return handler.getHandler() instanceof HandlerMethod m
                           && annotated.computeIfAbsent(m, h -> h.hasMethodAnnotation(Idempotent.class));
                }
            } catch (Exception e) {
                return false;
            }
        }
        return false;
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
