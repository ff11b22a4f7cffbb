package io.unitas.spring;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.client.RoutingSnapshot;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Per Servlet request: reads the routing context, refuses a request whose routing key is ambiguous (400) and a write
 * of a fenced unit (503 {@code write-fenced}, {@code Retry-After}) with the gateway's problems, and otherwise keeps the context current for the request's work,
 * clearing it when the request ends so the pooled thread serves the next one clean.
 */
final class RoutingContextFilter extends OncePerRequestFilter {

    /** The request attribute (and WebFlux exchange attribute) holding the request's routing context. */
    static final String ATTRIBUTE = RoutingContext.class.getName();

    private final InboundContext inbound;

    RoutingContextFilter(InboundContext inbound) {
        this.inbound = inbound;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        RoutingSnapshot snapshot = inbound.state().current();
        InboundContext.Accepted accepted = inbound.accept(new ServletRequestView(request), snapshot,
                                                          request.getMethod(), request.getRequestURI());
        RoutingContext context = accepted.context();
        ProblemDetail fenced = accepted.refusal();
        if (fenced != null) {
            response.setStatus(fenced.status());
            response.setContentType(ProblemJson.MEDIA_TYPE);
            if (fenced.retryAfterSeconds() > 0) {
                response.setHeader("Retry-After", Long.toString(fenced.retryAfterSeconds()));
            }
            response.getOutputStream().write(InboundContext.body(fenced));
            return;
        }
        request.setAttribute(ATTRIBUTE, context);
        request.setAttribute(InboundContext.ROUTE_ATTRIBUTE, accepted.route());
        try (RoutingContextHolder.Scope ignored = RoutingContextHolder.open(context)) {
            chain.doFilter(request, response);
        }
    }
}
