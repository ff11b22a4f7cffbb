package io.unitas.spring.app;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import javax.sql.DataSource;

import jakarta.servlet.http.HttpServletRequest;

import io.unitas.client.RoutingContext;
import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.Idempotent;
import org.h2.jdbcx.JdbcDataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.openfeign.EnableFeignClients;
import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.task.TaskDecorator;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A Servlet service with only the starter and application.yaml: {@code /echo} shows the routing headers it received
 * and the context it sees; {@code /call/{via}} calls {@code /echo} over HTTP through one client or thread hand-off and
 * answers what the callee saw.
 */
@SpringBootApplication
@EnableAsync
@EnableFeignClients(clients = ServiceApp.EchoClient.class)
public class ServiceApp {

    /**
     * {@code /echo} over OpenFeign. The port is known only once the server runs, so the client is resolved lazily
     * ({@code spring.cloud.openfeign.lazy-attributes-resolution}) and looked up at the first call.
     */
    @FeignClient(name = "echo", url = "http://localhost:${local.server.port}")
    public interface EchoClient {
        @GetMapping("/echo")
        Map<String, String> echo();
    }


    static final ParameterizedTypeReference<Map<String, String>> MAP = new ParameterizedTypeReference<>() {};

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    /** The application's own database in eu, which keeps eu's users' idempotency records. */
    @Bean
    DataSource ordersDb() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:orders-eu-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    /** Payments, each made at most once per Idempotency-Key; a test holds one open to see a duplicate in flight. */
    @RestController
    public static class Payments extends PaymentLedger {

        @Idempotent
        @PostMapping("/payments")
        Map<String, Object> pay(@RequestBody Map<String, Object> payment) throws InterruptedException {
            entered.incrementAndGet();
            hold.get().await();
            return Map.of("payment", made.incrementAndGet(), "amount", payment.get("amount"),
                          "unit", String.valueOf(RoutingContextHolder.current().unit()));
        }

        /** A payment answered 201 with headers a replay must carry too, and one it must not. */
        @Idempotent
        @PostMapping("/payments/created")
        ResponseEntity<Map<String, Object>> payCreated(@RequestBody Map<String, Object> payment) {
            int id = made.incrementAndGet();
            return ResponseEntity.created(URI.create("/payments/" + id)).eTag("\"v1\"")
                                 .header("X-Internal-Trace", "t-" + id)
                                 .body(Map.of("payment", id, "amount", payment.get("amount")));
        }

        /** A deposit owned by the path's user, not by the routing header's. */
        @Idempotent(owner = "{userId}")
        @PostMapping("/wallets/{userId}/deposits")
        Map<String, Object> deposit(@PathVariable String userId, @RequestBody Map<String, Object> deposit) {
            return Map.of("user", userId, "payment", made.incrementAndGet());
        }

        /** Idempotent by {@code unitas.idempotency.paths}, not by annotation. */
        @PostMapping("/transfers/{id}")
        Map<String, Object> transfer(@PathVariable String id) {
            return Map.of("transfer", id, "payment", made.incrementAndGet());
        }
    }

    /** A pool the application makes itself, wrapped as docs/spring.md says. */
    @Bean(destroyMethod = "shutdownNow")
    ExecutorService appPool() {
        return RoutingContextHolder.wrap(Executors.newFixedThreadPool(2));
    }

    /** One thread, so consecutive tasks of different requests certainly share it (the leak test). */
    @Bean
    ThreadPoolTaskExecutor single(TaskDecorator decorator) {
        ThreadPoolTaskExecutor e = new ThreadPoolTaskExecutor();
        e.setCorePoolSize(1);
        e.setMaxPoolSize(1);
        e.setTaskDecorator(decorator);
        e.setThreadNamePrefix("single-");
        return e;
    }

    /** What the callee saw: the routing headers and the current context's unit. */
    static Map<String, String> seen(HttpHeaders headers) {
        Map<String, String> m = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            if (name.toLowerCase().startsWith("x-unitas-") || name.equalsIgnoreCase("n-d-region")) {
                m.put(name.toLowerCase(), values.get(0));
            }
        });
        RoutingContext c = RoutingContextHolder.current();
        m.put("context.unit", String.valueOf(c.unit()));
        return m;
    }

    @Service
    public static class Calls {
        private final RestClient restClient;

        Calls(RestClient.Builder builder) {
            this.restClient = builder.build();
        }

        Map<String, String> echo(String base) {
            return restClient.get().uri(base + "/echo").retrieve().body(MAP);
        }

        @Async
        public CompletableFuture<Map<String, String>> echoAsync(String base) {
            return CompletableFuture.completedFuture(echo(base));
        }

        @Async("single")
        public CompletableFuture<String> unitOnSingleThread() {
            return CompletableFuture.completedFuture(String.valueOf(RoutingContextHolder.current().unit()));
        }
    }

    @RestController
    static class Endpoints {
        private final Calls calls;
        private final RestTemplate restTemplate;
        private final WebClient webClient;
        private final ExecutorService appPool;
        private final ObjectProvider<EchoClient> feign;

        /** {@code restTemplate} comes from the Boot line's {@code RestTemplateBuilder}, whose package differs. */
        Endpoints(Calls calls, RestTemplate restTemplate, WebClient.Builder webClients,
                  ExecutorService appPool, ObjectProvider<EchoClient> feign) {
            this.feign = feign;
            this.calls = calls;
            this.restTemplate = restTemplate;
            this.webClient = webClients.build();
            this.appPool = appPool;
        }

        @GetMapping("/echo")
        Map<String, String> echo(@RequestHeader HttpHeaders headers) {
            return seen(headers);
        }

        @PostMapping("/orders")
        Map<String, String> order() {
            return Map.of("unit", String.valueOf(RoutingContextHolder.current().unit()));
        }

        @GetMapping("/async-unit")
        String asyncUnit() throws Exception {
            return calls.unitOnSingleThread().get();
        }

        @GetMapping("/call/{via}")
        Map<String, String> call(@PathVariable String via, HttpServletRequest request) throws Exception {
            String base = "http://localhost:" + request.getLocalPort();
            return switch (via) {
                case "restclient" -> calls.echo(base);
                case "resttemplate" -> restTemplate.exchange(base + "/echo", org.springframework.http.HttpMethod.GET,
                                                             null, MAP).getBody();
                case "webclient" -> webClient.get().uri(base + "/echo").retrieve().bodyToMono(MAP).block();
                case "webclient-elastic" -> webClient.get().uri(base + "/echo").retrieve().bodyToMono(MAP)
                        .subscribeOn(Schedulers.boundedElastic()).block();
                case "reactor" -> Mono.fromCallable(() -> calls.echo(base))
                        .subscribeOn(Schedulers.boundedElastic()).publishOn(Schedulers.parallel())
                        .map(m -> m).block();
                case "feign" -> feign.getObject().echo();
                case "async" -> calls.echoAsync(base).get();
                case "pool" -> appPool.submit(() -> calls.echo(base)).get();
                case "nested-pool" -> appPool.submit(() -> calls.echoAsync(base).get()).get();
                case "completable" -> RoutingContextHolder.supplyAsync(() -> calls.echo(base), appPool).get();
                default -> throw new IllegalArgumentException("via: " + via);
            };
        }
    }
}
