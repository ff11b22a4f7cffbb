package io.unitas.spring;

import java.time.Clock;
import java.util.List;

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
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.client.RestClientCustomizer;
import org.springframework.boot.web.client.RestTemplateCustomizer;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;
import reactor.core.publisher.Hooks;

/**
 * Makes a Spring Boot service unit-aware: the routing state and {@code unitas.*} properties every other unitas
 * auto-configuration builds on, the routing context written on every {@code RestClient}, {@code RestTemplate},
 * {@code WebClient} and OpenFeign call, carried into {@code @Async} methods and the Boot-managed executor and into
 * Reactor operators, unit tags on metrics, and registration metadata. Each other concern has its own
 * auto-configuration, excluded alone: {@link UnitasWebMvcAutoConfiguration}, {@link UnitasWebFluxAutoConfiguration},
 * {@link UnitasLoadBalancerAutoConfiguration}, {@link UnitasGrpcAutoConfiguration},
 * {@link UnitasIdempotencyAutoConfiguration}, {@link UnitasDataAutoConfiguration},
 * {@link UnitasActuatorAutoConfiguration}. Every part is switched on by the class path and {@code unitas.enabled}.
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
}
