package io.unitas.spring.jdk21;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import jakarta.annotation.PreDestroy;
import jakarta.servlet.http.HttpServletRequest;

import io.unitas.client.RoutingContextHolder;
import io.unitas.spring.app.MutableRoutingState;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A Servlet service with the starter, run on JDK 21+ with {@code spring.threads.virtual.enabled=true}: requests and
 * {@code @Async} methods run on virtual threads, and the application makes a virtual-thread-per-task executor of its
 * own (compiled for Java 17, so the JDK 21 calls go through reflection). Every answer says which thread it ran on.
 */
@SpringBootApplication
@EnableAsync
public class VirtualThreadsApp {

    static final ParameterizedTypeReference<Map<String, String>> MAP = new ParameterizedTypeReference<>() {};

    @Bean
    MutableRoutingState routingState() {
        return new MutableRoutingState();
    }

    /**
     * {@code Executors.newVirtualThreadPerTaskExecutor()}, wrapped as docs/spring.md says for any pool. Not a bean:
     * an {@code Executor} bean of the application's own makes Boot leave out its {@code applicationTaskExecutor}, and
     * {@code @Async} would fall back to Spring's plain executor, on platform threads and without the task decorator.
     */
    static ExecutorService virtualPool() {
        try {
            return RoutingContextHolder.wrap(
                    (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Executors.newVirtualThreadPerTaskExecutor(): not found (expected: JDK"
                                            + " 21 or later)", e);
        }
    }

    /** Whether the calling thread is a virtual thread ({@code Thread.isVirtual()}, JDK 21). */
    static boolean onVirtualThread() {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Thread.isVirtual(): not found (expected: JDK 21 or later)", e);
        }
    }

    static Map<String, String> here() {
        return Map.of("unit", String.valueOf(RoutingContextHolder.current().unit()),
                      "virtual", String.valueOf(onVirtualThread()));
    }

    @Service
    public static class Later {
        @Async
        public CompletableFuture<Map<String, String>> here() {
            return CompletableFuture.completedFuture(VirtualThreadsApp.here());
        }
    }

    @RestController
    static class Endpoints {
        private final Later later;
        private final ExecutorService virtualPool;
        private final RestClient restClient;

        Endpoints(Later later, RestClient.Builder restClients) {
            this.later = later;
            this.virtualPool = virtualPool();
            this.restClient = restClients.build();
        }

        @PreDestroy
        void close() {
            virtualPool.shutdownNow();
        }

        /** The request's own thread. */
        @GetMapping("/here")
        Map<String, String> here() {
            return VirtualThreadsApp.here();
        }

        /** An {@code @Async} method on Boot's executor. */
        @GetMapping("/async")
        Map<String, String> async() throws Exception {
            return later.here().get();
        }

        /**
         * A task on the application's virtual-thread executor that calls {@code /here} over {@code RestClient}: the
         * callee answers with the unit it read from the call's headers.
         */
        @GetMapping("/pool")
        Map<String, String> pool(HttpServletRequest request) throws Exception {
            String base = "http://localhost:" + request.getLocalPort();
            return virtualPool.submit(() -> {
                Map<String, String> callee = restClient.get().uri(base + "/here").retrieve().body(MAP);
                return Map.of("unit", String.valueOf(RoutingContextHolder.current().unit()),
                              "virtual", String.valueOf(onVirtualThread()),
                              "callee.unit", String.valueOf(callee.get("unit")));
            }).get();
        }
    }
}
