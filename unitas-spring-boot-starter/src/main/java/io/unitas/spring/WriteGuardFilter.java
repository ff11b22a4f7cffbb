package io.unitas.spring;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.unitas.client.RoutingContextHolder;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Per Servlet request, right after the routing context is read and before anything runs (idempotency claims, the
 * handler): a write of a unit this region does not take now is refused with 421 {@code not-home-region}
 * ({@link WriteGuardDecision}).
 */
final class WriteGuardFilter extends OncePerRequestFilter {

    private final WriteGuardDecision guard;
    private final UnitasRoutingState state;

    WriteGuardFilter(WriteGuardDecision guard, UnitasRoutingState state) {
        this.guard = guard;
        this.state = state;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ProblemDetail refused = guard.refusal(RoutingContextHolder.current(), state.current(), request.getMethod(),
                                              request.getRequestURI());
        if (refused == null) {
            chain.doFilter(request, response);
            return;
        }
        response.setStatus(refused.status());
        response.setContentType(ProblemJson.MEDIA_TYPE);
        response.getOutputStream().write(ProblemJson.encode(refused));
    }
}
