package io.unitas.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients;

/**
 * Unit-aware instance selection ({@link UnitasLoadBalancerConfiguration}) as every load-balanced client's default.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnClass(name = "org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier")
@LoadBalancerClients(defaultConfiguration = UnitasLoadBalancerConfiguration.class)
public class UnitasLoadBalancerAutoConfiguration {
}
