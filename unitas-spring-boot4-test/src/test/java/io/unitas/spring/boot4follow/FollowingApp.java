package io.unitas.spring.boot4follow;

import java.util.Map;

import io.unitas.client.RoutingContextHolder;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** A Spring Boot 4 service with only the starter and its own routing state source from {@code application.yaml}. */
@SpringBootApplication
public class FollowingApp {

    @RestController
    static class Orders {
        @PostMapping("/orders")
        Map<String, String> order() {
            return Map.of("unit", String.valueOf(RoutingContextHolder.current().unit()));
        }
    }
}
