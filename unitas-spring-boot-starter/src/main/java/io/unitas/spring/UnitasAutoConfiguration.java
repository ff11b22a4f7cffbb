package io.unitas.spring;

import java.time.Clock;
import java.util.List;

import jakarta.servlet.Filter;

import io.unitas.client.InstanceSelector;
import io.unitas.client.RoutingContextAccessor;
import io.unitas.control.client.state.StateSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.client.RestTemplateCustomizer;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import org.springframework.boot.web.client.RestClientCustomizer;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Hooks;

/**
 * Makes a Spring Boot service unit-aware: the routing context read per request (Servlet or WebFlux) and cleared after,
 * written on every {@code RestClient}, {@code RestTemplate} and {@code WebClient} call, carried into {@code @Async}
 * methods and the Boot-managed executor, unit-aware instance selection for Spring Cloud LoadBalancer, and the write
 * fence in the service. Every part is switched on by the class path and {@code unitas.enabled}.
 */
@AutoConfiguration(before = TaskExecutionAutoConfiguration.class)
@ConditionalOnProperty(prefix = "unitas", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(UnitasProperties.class)
public class UnitasAutoConfiguration {

    /**
     * Routing state from the files {@code unitas.*} names, followed as the control plane's watch (when
     * {@code unitas.control-plane.url} is set) or the {@code file:} files change; unless the application brings its
     * own.
     */
    @Bean
    @ConditionalOnMissingBean
    UnitasRoutingState unitasRoutingState(UnitasProperties properties, ResourceLoader loader) {
        StaticFilesRoutingState files = new StaticFilesRoutingState(properties, loader);
        StateSource source = FollowedRoutingState.source(properties, loader);
        if (source == null && properties.getFences() != null) {
            throw new UnitasConfigurationException(List.of(
                    "unitas.fences: '" + properties.getFences() + "' (expected: a file: location, with unitas.topology,"
                    + " unitas.rules and unitas.health file: locations too, so that all of them are followed)"));
        }
        return source == null ? files : FollowedRoutingState.follow(files.current(), source);
    }

    /** Unit-aware instance selection over the current routing state. */
    @Bean
    @ConditionalOnMissingBean
    InstanceSelector unitasInstanceSelector(UnitasProperties properties, UnitasRoutingState state,
                                            ObjectProvider<Clock> clock) {
        return InstanceSelector.of(properties.getRegion(), state::current, clock.getIfAvailable(Clock::systemUTC));
    }

    static InboundContext inbound(UnitasProperties properties, UnitasRoutingState state, ObjectProvider<Clock> clock) {
        return new InboundContext(properties.routingHeaders(), state, properties.getFence().isEnabled(),
                                  properties.getRegion(), clock.getIfAvailable(Clock::systemUTC));
    }

    /**
     * Carries the routing context (and every other registered thread-local) into {@code @Async} methods and tasks of
     * the executor Boot configures, through context-propagation's {@link RoutingContextAccessor}.
     */
    @Bean
    @ConditionalOnMissingBean(TaskDecorator.class)
    TaskDecorator unitasTaskDecorator() {
        return new ContextPropagatingTaskDecorator();
    }

    /** The Servlet filter, first in the chain so everything after sees the context. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(Filter.class)
    static class Servlet {
        @Bean
        FilterRegistrationBean<RoutingContextFilter> unitasRoutingContextFilter(UnitasProperties properties,
                                                                                UnitasRoutingState state,
                                                                                ObjectProvider<Clock> clock) {
            FilterRegistrationBean<RoutingContextFilter> registration = new FilterRegistrationBean<>(
                    new RoutingContextFilter(inbound(properties, state, clock)));
            registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
            return registration;
        }
    }

    /**
     * {@link Idempotent} methods and paths whenever the data layer is present: a Servlet filter or a WebFlux filter,
     * whichever the application is. An application with idempotent endpoints whose records have no store stops at
     * start, naming the property ({@link IdempotentEndpoints}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication
    @ConditionalOnClass(name = "io.unitas.data.Idempotency")
    static class DataIdempotency {
        @Bean
        IdempotencySetup unitasIdempotencySetup(UnitasProperties properties, UnitasRoutingState state,
                                                org.springframework.beans.factory.BeanFactory beans,
                                                ObjectProvider<javax.sql.DataSource> own, HomeReadPeers peers,
                                                ObjectProvider<io.unitas.data.Idempotency> custom,
                                                ObjectProvider<Clock> clock) {
            io.unitas.data.Idempotency theirs = custom.getIfAvailable();
            if (theirs != null) {
                return new IdempotencySetup(theirs, null, null);
            }
            return IdempotencyConfiguration.setup(properties, state, beans, own, peers,
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

    /**
     * {@link UnitasReadiness}, the repositories' reads that fall back to the home region, when the data layer is
     * present; the other regions' home-read servers it reads from (and idempotency claims at them); and the answer to
     * a {@link DataNotReadyException} thrown from a controller.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.unitas.data.DataReadiness")
    static class Readiness {
        /** Closes its client's connections when the application stops. */
        @Bean
        HomeReadPeers unitasHomeReadPeers(UnitasProperties properties,
                                          ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters) {
            return new HomeReadPeers(RepositoryReadiness.homeReads(properties, meters.getIfAvailable()));
        }

        @Bean
        @ConditionalOnMissingBean
        UnitasReadiness unitasReadiness(UnitasProperties properties, UnitasRoutingState state, HomeReadPeers peers) {
            return new RepositoryReadiness(properties, state, peers.client());
        }

        /**
         * This region's home-read server, when {@code unitas.readiness.home-reads.server.port} is set: the
         * {@link UnitasEntity} beans and this region's idempotency records, served to the other regions.
         */
        @Bean
        @ConditionalOnProperty(prefix = "unitas.readiness.home-reads.server", name = "port")
        HomeReadServing unitasHomeReadServing(UnitasProperties properties, UnitasRoutingState state,
                                              ObjectProvider<UnitasEntity<?>> entities,
                                              ObjectProvider<IdempotencySetup> idempotency,
                                              ObjectProvider<io.micrometer.core.instrument.MeterRegistry> meters,
                                              ObjectProvider<Clock> clock) {
            List<UnitasEntity<?>> declared = entities.orderedStream().toList();
            IdempotencySetup setup = idempotency.getIfAvailable();
            io.unitas.data.IdempotencyStore local = setup == null ? null : setup.local();
            if (declared.isEmpty() && local == null) {
                throw new UnitasConfigurationException(List.of("unitas.readiness.home-reads.server.port: "
                        + properties.getReadiness().getHomeReads().getServer().getPort() + ", but nothing to serve"
                        + " (expected: UnitasEntity beans, or idempotency with a store of this region)"));
            }
            java.util.Set<String> types = new java.util.HashSet<>();
            for (UnitasEntity<?> entity : declared) {
                if (!types.add(entity.type())) {
                    throw new UnitasConfigurationException(List.of("UnitasEntity '" + entity.type()
                            + "': declared twice (expected: one bean per entity type)"));
                }
            }
            return new HomeReadServing(properties, state, declared, local, meters.getIfAvailable(),
                                       clock.getIfAvailable(Clock::systemUTC));
        }

        @Bean
        @ConditionalOnWebApplication
        DataNotReadyAdvice unitasDataNotReadyAdvice() {
            return new DataNotReadyAdvice();
        }
    }

    /**
     * Reactor's automatic context propagation (what Boot's {@code spring.reactor.context-propagation=auto} does), so
     * operators on other schedulers, and {@code block()} from a request thread, see the routing context.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "reactor.core.publisher.Hooks")
    @ConditionalOnProperty(prefix = "unitas", name = "reactor-context-propagation", matchIfMissing = true)
    static class ReactorPropagation {
        @Bean
        static SmartInitializingSingleton unitasReactorContextPropagation() {
            return Hooks::enableAutomaticContextPropagation;
        }
    }

    /** The WebFlux filter: the context travels in the Reactor context of each request. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    static class Reactive {
        @Bean
        WebFilter unitasRoutingContextWebFilter(UnitasProperties properties, UnitasRoutingState state,
                                                ObjectProvider<Clock> clock) {
            return new RoutingContextWebFilter(inbound(properties, state, clock));
        }
    }

    /**
     * The context written on {@code RestClient} and {@code RestTemplate} calls, through Spring Boot 3's customizers
     * ({@code org.springframework.boot.web.client}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.client.RestClient",
                                "org.springframework.boot.web.client.RestClientCustomizer"})
    static class BlockingClients {
        @Bean
        RestClientCustomizer unitasRestClientCustomizer(UnitasProperties properties) {
            return builder -> builder.requestInterceptor(OutboundRouting.interceptor(properties.routingHeaders()));
        }

        @Bean
        RestTemplateCustomizer unitasRestTemplateCustomizer(UnitasProperties properties) {
            return template -> OutboundRouting.addTo(template, properties.routingHeaders());
        }
    }

    /** The same through Spring Boot 4's customizers, which moved to {@code org.springframework.boot.restclient}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.client.RestClient",
                                "org.springframework.boot.restclient.RestClientCustomizer"})
    static class BlockingClientsBoot4 {
        @Bean
        org.springframework.boot.restclient.RestClientCustomizer unitasRestClientCustomizer(
                UnitasProperties properties) {
            return builder -> builder.requestInterceptor(OutboundRouting.interceptor(properties.routingHeaders()));
        }

        @Bean
        org.springframework.boot.restclient.RestTemplateCustomizer unitasRestTemplateCustomizer(
                UnitasProperties properties) {
            return template -> OutboundRouting.addTo(template, properties.routingHeaders());
        }
    }

    /** The context written on {@code WebClient} calls, through Spring Boot 3's customizer. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.reactive.function.client.WebClient",
                                "org.springframework.boot.web.reactive.function.client.WebClientCustomizer"})
    static class ReactiveClients {
        @Bean
        WebClientCustomizer unitasWebClientCustomizer(UnitasProperties properties) {
            return builder -> builder.filter(WebClientRouting.exchangeFilter(properties.routingHeaders()));
        }
    }

    /** The same through Spring Boot 4's customizer, which moved to {@code org.springframework.boot.webclient}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.reactive.function.client.WebClient",
                                "org.springframework.boot.webclient.WebClientCustomizer"})
    static class ReactiveClientsBoot4 {
        @Bean
        org.springframework.boot.webclient.WebClientCustomizer unitasWebClientCustomizer(
                UnitasProperties properties) {
            return builder -> builder.filter(WebClientRouting.exchangeFilter(properties.routingHeaders()));
        }
    }

    /** {@code unitas.unit} and {@code unitas.route} on the service's own HTTP server metrics. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.observation.ObservationFilter")
    static class Observability {
        @Bean
        io.micrometer.observation.ObservationFilter unitasUnitTags() {
            return new UnitTags();
        }
    }

    /** {@code /actuator/unitas}: the routing state the service sees. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class Actuator {
        @Bean
        @ConditionalOnMissingBean
        RoutingStateEndpoint unitasRoutingStateEndpoint(UnitasProperties properties, UnitasRoutingState state) {
            return new RoutingStateEndpoint(properties, state);
        }

        /** {@code /actuator/health/unitas}: this region's health as the gateways see it (Boot 3's health API). */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
        static class HealthComponent {
            @Bean(name = "unitasHealthIndicator")
            @ConditionalOnMissingBean(name = "unitasHealthIndicator")
            UnitasHealthIndicator unitasHealthIndicator(UnitasProperties properties, UnitasRoutingState state) {
                return new UnitasHealthIndicator(state, properties.getRegion());
            }

            /** {@code /actuator/health/unitasHomeReads}: this region's home-read server, up while it serves. */
            @Bean(name = "unitasHomeReadsHealthIndicator")
            @ConditionalOnClass(name = "io.unitas.data.DataReadiness")
            @ConditionalOnProperty(prefix = "unitas.readiness.home-reads.server", name = "port")
            @ConditionalOnMissingBean(name = "unitasHomeReadsHealthIndicator")
            org.springframework.boot.actuate.health.HealthIndicator unitasHomeReadsHealthIndicator(
                    HomeReadServing serving) {
                return () -> serving.isRunning()
                        ? org.springframework.boot.actuate.health.Health.up()
                                .withDetail("uri", String.valueOf(serving.uri()))
                                .withDetail("entities", serving.types())
                                .withDetail("idempotency", serving.servesIdempotency()).build()
                        : org.springframework.boot.actuate.health.Health.down()
                                .withDetail("reason", "stopped").build();
            }
        }
    }

    /** The context written on OpenFeign calls: every {@code @FeignClient} picks up request interceptor beans. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "feign.RequestInterceptor")
    static class Feign {
        @Bean
        feign.RequestInterceptor unitasFeignRequestInterceptor(UnitasProperties properties) {
            return FeignRouting.feignInterceptor(properties.routingHeaders());
        }
    }

    /** This instance's region, unit and version in the metadata of its registration (Eureka, Consul, Nacos…). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.client.serviceregistry.Registration")
    static class Registry {
        @Bean
        static BeanPostProcessor unitasRegistrationMetadata(ObjectProvider<UnitasProperties> properties) {
            return new RegistrationMetadata(properties);
        }
    }

    /**
     * grpc-java: the server interceptor reads each call's context from its metadata (stamp, then routing key) and
     * keeps it current in the call's callbacks; the client interceptor writes the current context on every call.
     * The application applies them where it builds its server and channels (or its gRPC integration picks up
     * {@code ServerInterceptor} and {@code ClientInterceptor} beans).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.grpc.ServerInterceptor", "io.grpc.ClientInterceptor"})
    static class Grpc {
        @Bean
        @ConditionalOnMissingBean(name = "unitasGrpcServerInterceptor")
        io.grpc.ServerInterceptor unitasGrpcServerInterceptor(UnitasProperties properties, UnitasRoutingState state,
                                                              ObjectProvider<Clock> clock) {
            return GrpcRouting.serverInterceptor(inbound(properties, state, clock));
        }

        @Bean
        @ConditionalOnMissingBean(name = "unitasGrpcClientInterceptor")
        io.grpc.ClientInterceptor unitasGrpcClientInterceptor(UnitasProperties properties) {
            return io.unitas.client.grpc.RoutingGrpc.clientInterceptor(properties.routingHeaders());
        }

        /** The standard gRPC health service, answered from the routing state (grpc-services on the class path). */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "io.grpc.health.v1.HealthGrpc")
        static class Health {
            @Bean
            @ConditionalOnMissingBean
            UnitasGrpcHealth unitasGrpcHealth(UnitasProperties properties, UnitasRoutingState state) {
                return new UnitasGrpcHealth(state, properties.getRegion());
            }
        }
    }

    /** Unit-aware instance selection as every load-balanced client's default. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier")
    @LoadBalancerClients(defaultConfiguration = UnitasLoadBalancerConfiguration.class)
    static class LoadBalancer {
    }
}
