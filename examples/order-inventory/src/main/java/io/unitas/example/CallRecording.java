package io.unitas.example;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.core.rules.Unit;
import io.unitas.spring.UnitasRoutingState;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * What both services add for the playground to watch them: a filter, after the starter's, that records each
 * inbound call with the routing context the starter made current, and {@code GET /calls} with the counts and the
 * latest calls. Nothing here routes.
 */
@Configuration(proxyBeanMethods = false)
public class CallRecording {

    /** The header a caller names its calling thread in (the order service sends it to show the {@code @Async} hop). */
    public static final String THREAD_HEADER = "x-example-thread";

    @Bean
    CallLog callLog() {
        return new CallLog();
    }

    @Bean
    FilterRegistrationBean<OncePerRequestFilter> callRecordingFilter(
            CallLog log, UnitasRoutingState state, @Value("${spring.application.name}") String service,
            @Value("${unitas.region}") String region,
            @Value("${example.instance:${spring.application.name}-${unitas.region}}") String instance) {
        OncePerRequestFilter filter = new OncePerRequestFilter() {
            @Override
            protected void doFilterInternal(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
                    throws ServletException, IOException {
                if (!req.getRequestURI().equals("/calls")) {
                    RoutingContext c = RoutingContextHolder.current();
                    Unit unit = c.unit() == null ? null : state.current().rules().unit(c.unit());
                    log.record(new ServiceCall(service, instance, region, req.getRequestURI(), c.unit(), c.region(),
                                               c.origin(), req.getHeader(THREAD_HEADER),
                                               unit == null ? null : unit.home().id()));
                }
                chain.doFilter(req, res);
            }
        };
        FilterRegistrationBean<OncePerRequestFilter> bean = new FilterRegistrationBean<>(filter);
        bean.setOrder(Ordered.LOWEST_PRECEDENCE);
        return bean;
    }

    /** {@code GET /calls}: how many calls this instance served, with a unit, in the wrong region; the latest. */
    @RestController
    static class Calls {
        private final CallLog log;

        Calls(CallLog log) {
            this.log = log;
        }

        @GetMapping("/calls")
        Map<String, Object> calls() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("calls", log.calls());
            m.put("cross_unit", log.crossUnit());
            m.put("wrong_region", log.wrongRegion());
            List<ServiceCall> latest = log.latest();
            m.put("latest", latest);
            return m;
        }
    }
}
