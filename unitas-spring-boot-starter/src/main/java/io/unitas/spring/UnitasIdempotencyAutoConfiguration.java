package io.unitas.spring;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.WebFilter;

/**
 * {@link Idempotent} methods and paths whenever the data layer is present: a Servlet filter or a WebFlux filter,
 * whichever the application is. An application with idempotent endpoints whose records have no store stops at
 * start, naming the property ({@link IdempotentEndpoints}). Claims go to the home region through the home-read
 * peers of {@link UnitasDataAutoConfiguration}, when it runs.
 */
@AutoConfiguration(after = {UnitasAutoConfiguration.class, UnitasDataAutoConfiguration.class})
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnWebApplication
@ConditionalOnClass(name = "io.unitas.data.Idempotency")
public class UnitasIdempotencyAutoConfiguration {
    @Bean
    IdempotencySetup unitasIdempotencySetup(UnitasProperties properties, UnitasRoutingState state,
                                            org.springframework.beans.factory.BeanFactory beans,
                                            ObjectProvider<javax.sql.DataSource> own,
                                            ObjectProvider<HomeReadPeers> peers,
                                            ObjectProvider<io.unitas.data.Idempotency> custom,
                                            ObjectProvider<Clock> clock) {
        io.unitas.data.Idempotency theirs = custom.getIfAvailable();
        if (theirs != null) {
            return new IdempotencySetup(theirs, null, null);
        }
        // without the data plane's peers (UnitasDataAutoConfiguration excluded), claims stay in this region's store
        return IdempotencyConfiguration.setup(properties, state, beans, own,
                                              peers.getIfAvailable(() -> new HomeReadPeers(null)),
                                              clock.getIfAvailable(Clock::systemUTC));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "jakarta.servlet.Filter")
    static class ServletIdempotency {
        @Bean
        FilterRegistrationBean<IdempotencyFilter> unitasIdempotencyFilter(
                UnitasProperties properties, IdempotencySetup setup, UnitasRoutingState state,
                ObjectProvider<org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping>
                        mappings) {
            return IdempotencyConfiguration.filter(properties, setup, state, mappings);
        }

        @Bean
        static SmartInitializingSingleton unitasIdempotentEndpointsCheck(
                ObjectProvider<UnitasProperties> properties, ObjectProvider<IdempotencySetup> setup,
                ObjectProvider<org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping>
                        mappings) {
            return () -> {
                java.util.Map<org.springframework.web.method.HandlerMethod, java.util.Set<String>> handlers =
                        new java.util.LinkedHashMap<>();
                mappings.orderedStream().forEach(m -> m.getHandlerMethods().forEach(
                        (info, handler) -> handlers.put(handler, info.getPatternValues())));
                IdempotentEndpoints.check(setup.getObject(), properties.getObject().getIdempotency(), handlers);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class ReactiveIdempotency {
        @Bean
        WebFilter unitasIdempotencyWebFilter(
                UnitasProperties properties, IdempotencySetup setup, UnitasRoutingState state,
                ObjectProvider<
                        org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping>
                        mappings) {
            return new IdempotencyWebFilter(setup.idempotency(), properties.getIdempotency(), state, mappings);
        }

        @Bean
        static SmartInitializingSingleton unitasIdempotentEndpointsCheck(
                ObjectProvider<UnitasProperties> properties, ObjectProvider<IdempotencySetup> setup,
                ObjectProvider<
                        org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping>
                        mappings) {
            return () -> {
                java.util.Map<org.springframework.web.method.HandlerMethod, java.util.Set<String>> handlers =
                        new java.util.LinkedHashMap<>();
                mappings.orderedStream().forEach(m -> m.getHandlerMethods().forEach(
                        (info, handler) -> handlers.put(handler, info.getPatternsCondition().getPatterns()
                                .stream().map(org.springframework.web.util.pattern.PathPattern::getPatternString)
                                .collect(java.util.stream.Collectors.toSet()))));
                IdempotentEndpoints.check(setup.getObject(), properties.getObject().getIdempotency(), handlers);
            };
        }
    }
}
