package io.unitas.benchmarks.scg;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;

/**
 * The same header-based choice the unitas gateway makes, written the Spring Cloud Gateway way: a user id
 * header below 5000 goes to the cn backend, anything else to the eu backend, and the chosen region travels on.
 */
@SpringBootApplication
public class ScgPeer {

    /** Starts the peer; {@code --server.port}, {@code --backend.cn} and {@code --backend.eu} set it up. */
    public static void main(String[] args) {
        SpringApplication.run(ScgPeer.class, args);
    }

    /** Two routes chosen by the {@code x-user-id} header. */
    @Bean
    RouteLocator routes(RouteLocatorBuilder builder, @Value("${backend.cn}") String cn,
                        @Value("${backend.eu}") String eu) {
        return builder.routes()
                      .route("cn", r -> r.header("x-user-id", "[0-4][0-9]{0,3}|[0-9]{1,3}")
                                         .filters(f -> f.addRequestHeader("x-unitas-region", "cn"))
                                         .uri(cn))
                      .route("eu", r -> r.header("x-user-id", ".*")
                                         .filters(f -> f.addRequestHeader("x-unitas-region", "eu"))
                                         .uri(eu))
                      .build();
    }
}
