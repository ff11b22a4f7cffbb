package io.unitas.spring;

import java.time.Clock;

import jakarta.servlet.Filter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * The routing context of each request in a Servlet application: the filter, first in the chain so everything after
 * it sees the context, and clears it after. Exclude it alone to read the context some other way.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(Filter.class)
public class UnitasWebMvcAutoConfiguration {
    @Bean
    FilterRegistrationBean<RoutingContextFilter> unitasRoutingContextFilter(UnitasProperties properties,
                                                                            UnitasRoutingState state,
                                                                            ObjectProvider<Clock> clock) {
        FilterRegistrationBean<RoutingContextFilter> registration = new FilterRegistrationBean<>(
                new RoutingContextFilter(UnitasAutoConfiguration.inbound(properties, state, clock)));
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
        return registration;
    }
}
