package io.unitas.spring.forwardreactive;

import java.util.Map;

import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The deposit service on WebFlux: only its own units' deposits run here; the guard forwards the others. */
@SpringBootApplication
public class ForwardReactiveApp {

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @RestController
    static class Deposits {
        @PostMapping("/wallets/{userId}/deposits")
        Mono<Map<String, Object>> deposit(@PathVariable String userId) {
            return Mono.just(Map.of("user", userId, "servedIn",
                                    String.valueOf(RoutingContextHolder.current().region())));
        }
    }
}
