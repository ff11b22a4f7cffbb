package io.unitas.spring.reactive;

import java.util.LinkedHashMap;
import java.util.Map;

import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A WebFlux service with only the starter: {@code /echo} shows the routing headers and the context an operator on
 * another scheduler sees; {@code /call} calls {@code /echo} with {@code WebClient} from inside a reactive chain.
 */
@SpringBootApplication
public class ReactiveApp {

    private static final ParameterizedTypeReference<Map<String, String>> MAP = new ParameterizedTypeReference<>() {};

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @RestController
    static class Endpoints {
        private final WebClient webClient;

        Endpoints(WebClient.Builder webClients) {
            this.webClient = webClients.build();
        }

        @GetMapping("/echo")
        Mono<Map<String, String>> echo(@RequestHeader HttpHeaders headers) {
            return Mono.just(headers).publishOn(Schedulers.parallel()).map(h -> {
                Map<String, String> m = new LinkedHashMap<>();
                h.forEach((name, values) -> {
                    if (name.toLowerCase().startsWith("x-unitas-")) {
                        m.put(name.toLowerCase(), values.get(0));
                    }
                });
                m.put("context.unit", String.valueOf(RoutingContextHolder.current().unit()));
                return m;
            });
        }

        @GetMapping("/call")
        Mono<Map<String, String>> call(ServerHttpRequest request) {
            String base = "http://localhost:" + request.getLocalAddress().getPort();
            return Mono.just(base).publishOn(Schedulers.boundedElastic())
                    .flatMap(b -> webClient.get().uri(b + "/echo").retrieve().bodyToMono(MAP));
        }

        @PostMapping("/orders")
        Mono<String> order() {
            return Mono.fromSupplier(() -> String.valueOf(RoutingContextHolder.current().unit()));
        }
    }
}
