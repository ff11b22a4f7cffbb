package io.unitas.spring.boot4reactive;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.Idempotent;
import io.unitas.spring.boot4.MutableRoutingState;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A Spring Boot 4 WebFlux service (Reactor Netty) with only the starter: {@code /echo} shows the routing headers and
 * the context an operator on another scheduler sees; {@code /call} calls {@code /echo} with {@code WebClient} from
 * inside a reactive chain; {@code POST /payments} is {@link Idempotent}, its records in an embedded database.
 */
@SpringBootApplication
public class Boot4ReactiveApp {

    private static final ParameterizedTypeReference<Map<String, String>> MAP = new ParameterizedTypeReference<>() {};

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    @Bean
    DataSource ordersDb() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:boot4-reactive-eu-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    @RestController
    public static class Endpoints {
        public final AtomicInteger made = new AtomicInteger();
        public final AtomicReference<CountDownLatch> hold = new AtomicReference<>(new CountDownLatch(0));
        public final AtomicInteger entered = new AtomicInteger();
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

        @Idempotent
        @PostMapping("/payments")
        Mono<Map<String, Object>> pay(@RequestBody Mono<Map<String, Object>> payment) {
            return payment.publishOn(Schedulers.boundedElastic()).map(p -> {
                entered.incrementAndGet();
                try {
                    hold.get().await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                return Map.of("payment", made.incrementAndGet(), "amount", p.get("amount"),
                              "unit", String.valueOf(RoutingContextHolder.current().unit()));
            });
        }
    }
}
