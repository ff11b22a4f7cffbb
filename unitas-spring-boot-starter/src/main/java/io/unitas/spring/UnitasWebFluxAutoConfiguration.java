package io.unitas.spring;

import java.time.Clock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.server.WebFilter;

/**
 * The routing context of each request in a WebFlux application: the filter puts it in the Reactor context of the
 * request.
 */
@AutoConfiguration(after = UnitasAutoConfiguration.class)
@ConditionalOnBean(UnitasProperties.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
public class UnitasWebFluxAutoConfiguration {
    @Bean
    WebFilter unitasRoutingContextWebFilter(UnitasProperties properties, UnitasRoutingState state,
                                            ObjectProvider<Clock> clock) {
        return new RoutingContextWebFilter(UnitasAutoConfiguration.inbound(properties, state, clock));
    }
}
