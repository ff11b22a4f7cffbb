package io.unitas.spring.boot4;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.servlet.http.HttpServletRequest;

import io.unitas.client.RoutingContextHolder;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.restclient.RestTemplateBuilder;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cloud.openfeign.EnableFeignClients;
import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A Spring Boot 4 Servlet service with only the starter and application.yaml: {@code /echo} shows the routing headers
 * it received and the context it sees; {@code /call/{via}} calls {@code /echo} over {@code RestClient} (directly or
 * from an {@code @Async} method), {@code RestTemplate}, {@code WebClient}, OpenFeign, or from
 * the application's own pool, and answers what the callee saw.
 */
@SpringBootApplication
@EnableAsync
@EnableFeignClients(clients = Boot4App.EchoClient.class)
public class Boot4App {

    /** {@code /echo} over OpenFeign; the port is known once the server runs, so the client resolves lazily. */
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

    @Service
    public static class Calls {
        private final RestClient restClient;

        Calls(RestClient.Builder builder) {
            this.restClient = builder.build();
        }

        /** What the callee saw, and the thread the call left from. */
        Map<String, String> echo(String base) {
            Map<String, String> seen = new LinkedHashMap<>(restClient.get().uri(base + "/echo").retrieve().body(MAP));
            seen.put("sent.from", Thread.currentThread().getName());
            return seen;
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

        Endpoints(Calls calls, RestTemplateBuilder restTemplates, WebClient.Builder webClients,
                  ExecutorService appPool, ObjectProvider<EchoClient> feign) {
            this.calls = calls;
            this.appPool = appPool;
            this.feign = feign;
            this.restTemplate = restTemplates.build();
            this.webClient = webClients.build();
        }

        /** The routing headers received and the current context's unit. */
        @GetMapping("/echo")
        Map<String, String> echo(@RequestHeader HttpHeaders headers) {
            Map<String, String> m = new LinkedHashMap<>();
            headers.forEach((name, values) -> {
                if (name.toLowerCase().startsWith("x-unitas-")) {
                    m.put(name.toLowerCase(), values.get(0));
                }
            });
            m.put("context.unit", String.valueOf(RoutingContextHolder.current().unit()));
            return m;
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
                case "async" -> calls.echoAsync(base).get();
                case "resttemplate" -> restTemplate.exchange(base + "/echo", HttpMethod.GET, null, MAP).getBody();
                case "webclient" -> webClient.get().uri(base + "/echo").retrieve().bodyToMono(MAP).block();
                case "feign" -> feign.getObject().echo();
                case "pool" -> appPool.submit(() -> calls.echo(base)).get();
                case "nested-pool" -> appPool.submit(() -> calls.echoAsync(base).get()).get();
                default -> throw new IllegalArgumentException("via: " + via);
            };
        }
    }
}
