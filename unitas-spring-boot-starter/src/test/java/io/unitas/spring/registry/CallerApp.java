package io.unitas.spring.registry;

import io.unitas.spring.app.MutableRoutingState;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** A service with the starter and a Eureka client, calling the registered {@code inventory} service. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class CallerApp {

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }
}
