package io.unitas.spring;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.server.WebFilter;

/**
 * The wrong-region write guard ({@code unitas.write-guard.*}): a write (POST, PUT, PATCH, DELETE, as the fences count
 * them) of a unit that this region does not take by the routing state in force is refused with 421
 * {@code not-home-region} before it runs, in Servlet and WebFlux applications alike. Excluded alone, this class turns
 * the guard off; {@code unitas.write-guard.mode: allow} keeps it on the metrics only ({@code unitas.route=off_route});
 * {@code forward} sends such a write on to the region that takes it and relays the answer ({@link WriteForwarder}).
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@ConditionalOnWebApplication
@ConditionalOnBean(UnitasRoutingState.class)
@EnableConfigurationProperties(WriteGuardProperties.class)
public class UnitasWriteGuardAutoConfiguration {

    @Bean
    WriteGuardDecision unitasWriteGuard(UnitasProperties properties, WriteGuardProperties settings,
                                        ObjectProvider<Clock> clock) {
        return WriteGuardDecision.of(properties.getRegion(), settings, clock.getIfAvailable(Clock::systemUTC));
    }

    /** In {@code forward} mode only: where refused writes go, checked at start against the topology. */
    @Bean
    @ConditionalOnProperty(prefix = "unitas.write-guard", name = "mode", havingValue = "forward")
    WriteForwarder unitasWriteForwarder(UnitasProperties properties, WriteGuardProperties settings,
                                        UnitasRoutingState state) {
        return WriteForwarder.of(properties.getRegion(), settings.getForward(),
                                 state.current().rules().topology(), properties.routingHeaders());
    }

    /** After the routing context's filter ({@code HIGHEST_PRECEDENCE + 10}), before idempotency's ({@code + 12}). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class Servlet {
        @Bean
        FilterRegistrationBean<OncePerRequestFilter> unitasWriteGuardFilter(
                WriteGuardDecision guard, UnitasRoutingState state, ObjectProvider<WriteForwarder> forwarder) {
            WriteForwarder f = forwarder.getIfAvailable();
            FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(
                    f == null ? new WriteGuardFilter(guard, state) : new WriteForwardFilter(guard, state, f));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 11);
            return registration;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class Reactive {
        @Bean
        WebFilter unitasWriteGuardWebFilter(WriteGuardDecision guard, UnitasRoutingState state,
                                            ObjectProvider<WriteForwarder> forwarder) {
            WriteForwarder f = forwarder.getIfAvailable();
            return f == null ? new WriteGuardWebFilter(guard, state) : new WriteForwardWebFilter(guard, state, f);
        }
    }
}
