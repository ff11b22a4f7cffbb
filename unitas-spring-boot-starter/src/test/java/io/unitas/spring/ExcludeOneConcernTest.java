package io.unitas.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClientSpecification;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Each concern of the starter is its own auto-configuration, excluded alone the way a Boot user does it
 * ({@code spring.autoconfigure.exclude}): the application still starts, that concern's beans are gone, and every other
 * concern's are there.
 */
class ExcludeOneConcernTest {

    /** A concern, the auto-configuration that owns it, and the bean that shows it ran. */
    enum Concern {
        CORE_PROPAGATION(UnitasAutoConfiguration.class, Stack.BOTH, "unitasTaskDecorator"),
        WEB_MVC(UnitasWebMvcAutoConfiguration.class, Stack.SERVLET, "unitasRoutingContextFilter"),
        WEBFLUX(UnitasWebFluxAutoConfiguration.class, Stack.REACTIVE, "unitasRoutingContextWebFilter"),
        LOAD_BALANCER(UnitasLoadBalancerAutoConfiguration.class, Stack.BOTH, null),
        GRPC(UnitasGrpcAutoConfiguration.class, Stack.BOTH, "unitasGrpcServerInterceptor"),
        DATA_PLANE(UnitasDataAutoConfiguration.class, Stack.BOTH, "unitasReadiness"),
        IDEMPOTENCY(UnitasIdempotencyAutoConfiguration.class, Stack.BOTH, "unitasIdempotencySetup"),
        ACTUATOR(UnitasActuatorAutoConfiguration.class, Stack.BOTH, "unitasHealthIndicator");

        final Class<?> type;
        final Stack stack;
        final String bean;

        Concern(Class<?> type, Stack stack, String bean) {
            this.type = type;
            this.stack = stack;
            this.bean = bean;
        }

        boolean runsOn(Stack s) {
            return stack == Stack.BOTH || stack == s;
        }

        /** Whether this concern's beans are in the context. */
        boolean isPresentIn(ApplicationContext context) {
            if (this == LOAD_BALANCER) {
                // @LoadBalancerClients(defaultConfiguration = ...) registers a specification named after its class
                return Arrays.stream(context.getBeanNamesForType(LoadBalancerClientSpecification.class))
                        .anyMatch(name -> name.contains(UnitasLoadBalancerAutoConfiguration.class.getName()));
            }
            return context.containsBean(bean);
        }
    }

    enum Stack { SERVLET, REACTIVE, BOTH }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @ParameterizedTest
    @EnumSource(Concern.class)
    void excludedAlone_itsBeansAreGone_everyOtherConcernStays(Concern excluded) {
        String[] properties = {"unitas.region=eu", "unitas.topology=classpath:unitas/topology.yaml",
                               "unitas.rules=classpath:unitas/rules.yaml",
                               // the test class path has Eureka (for another test): no registration here
                               "eureka.client.enabled=false",
                               "spring.autoconfigure.exclude=" + excluded.type.getName()};
        if (excluded.stack == Stack.REACTIVE) {
            new ReactiveWebApplicationContextRunner().withUserConfiguration(App.class).withPropertyValues(properties)
                    .run(context -> check(context, context.getStartupFailure(), excluded, Stack.REACTIVE));
        } else {
            new WebApplicationContextRunner().withUserConfiguration(App.class).withPropertyValues(properties)
                    .run(context -> check(context, context.getStartupFailure(), excluded, Stack.SERVLET));
        }
    }

    private static void check(ApplicationContext context, Throwable failure, Concern excluded, Stack stack) {
        assertThat(failure).as("start without %s", excluded).isNull();
        List<Concern> others = Arrays.stream(Concern.values()).filter(x -> x != excluded && x.runsOn(stack)).toList();
        if (excluded == Concern.CORE_PROPAGATION) {
            // the core carries the properties and the routing state: without it, nothing of unitas runs
            assertThat(others).noneMatch(x -> x.isPresentIn(context));
            return;
        }
        assertThat(excluded.isPresentIn(context)).as("%s after excluding it", excluded).isFalse();
        assertThat(others).allSatisfy(x -> assertThat(x.isPresentIn(context)).as("%s", x).isTrue());
    }
}
