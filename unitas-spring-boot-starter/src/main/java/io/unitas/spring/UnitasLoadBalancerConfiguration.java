package io.unitas.spring;

import io.unitas.client.InstanceSelector;
import org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier;
import org.springframework.cloud.loadbalancer.support.LoadBalancerClientFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The default configuration of every load-balanced client: instances from the discovery client, narrowed by unit
 * ({@link UnitAwareServiceInstanceListSupplier}). Not cached above the selection: the registry client keeps its own
 * copy, and a cache would keep one request's region for the next.
 */
@Configuration(proxyBeanMethods = false)
class UnitasLoadBalancerConfiguration {

    @Bean
    ServiceInstanceListSupplier unitAwareServiceInstanceListSupplier(ConfigurableApplicationContext context,
                                                                     Environment environment) {
        InstanceSelector selector = context.getBean(InstanceSelector.class);
        UnitasProperties properties = context.getBean(UnitasProperties.class);
        String serviceId = environment.getProperty(LoadBalancerClientFactory.PROPERTY_NAME);
        return ServiceInstanceListSupplier.builder()
                .withBlockingDiscoveryClient()
                .with((ctx, delegate) -> new UnitAwareServiceInstanceListSupplier(
                        delegate, selector, properties.routingHeaders(), properties.kindOf(serviceId)))
                .build(context);
    }
}
