package io.unitas.spring;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.config.ProblemJson;
import io.unitas.core.ProblemDetail;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The Servlet write guard in {@code forward} mode, where {@link WriteGuardFilter} stands otherwise: a write of a unit
 * this region does not take now is sent on to the region that does ({@link WriteForwarder}) and its answer relayed;
 * one that cannot be (already forwarded once, no region takes it, no target for that region) is refused with 421
 * {@code not-home-region}.
 */
final class WriteForwardFilter extends OncePerRequestFilter {

    private final WriteGuardDecision guard;
    private final UnitasRoutingState state;
    private final WriteForwarder forwarder;

    WriteForwardFilter(WriteGuardDecision guard, UnitasRoutingState state, WriteForwarder forwarder) {
        this.guard = guard;
        this.state = state;
        this.forwarder = forwarder;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        RoutingContext context = RoutingContextHolder.current();
        WriteGuardDecision.Refusal refused = guard.refused(context, state.current(), request.getMethod(),
                                                           request.getRequestURI());
        if (refused == null) {
            chain.doFilter(request, response);
            return;
        }
        String forwardedBy = request.getHeader(WriteForwarder.FORWARDED_BY);
        if (forwardedBy != null || forwarder.target(refused.target()) == null) {
            ProblemDetail problem = forwardedBy == null ? refused.problem()
                                                        : WriteForwarder.refusedAgain(refused.problem(), forwardedBy);
            write(response, problem.status(), Map.of("Content-Type", List.of(ProblemJson.MEDIA_TYPE)),
                  ProblemJson.encode(problem));
            return;
        }
        List<Map.Entry<String, String>> headers = new ArrayList<>();
        for (String name : Collections.list(request.getHeaderNames())) {
            for (String value : Collections.list(request.getHeaders(name))) {
                headers.add(Map.entry(name, value));
            }
        }
        String query = request.getQueryString();
        byte[] body = request.getInputStream().readAllBytes();
        WriteForwarder.Answer answer = forwarder.forward(refused.target(), context.unit(), request.getMethod(),
                                                         request.getRequestURI() + (query == null ? "" : "?" + query),
                                                         headers, body, context).join();
        write(response, answer.status(), answer.headers(), answer.body());
    }

    private static void write(HttpServletResponse response, int status, Map<String, List<String>> headers,
                              byte[] body) throws IOException {
        response.setStatus(status);
        headers.forEach((name, values) -> values.forEach(v -> response.addHeader(name, v)));
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }
}
